#!/usr/bin/env bash
# GPU checks against an existing build (build/ and python/gdn2/libgdn2_torch.so, e.g. built on
# another machine and copied over): the C++ example, compute-sanitizer, the GPU tests and the
# benchmark. Logs go to $OUT (default ./gpu_check_out). Steps: example sanitize pytest bench
# (default: these four) and stress (on request: issue 4's stress run, a few minutes),
# e.g. `scripts/gpu_check.sh pytest bench --quick`, `OUT=/tmp/x scripts/gpu_check.sh sanitize`.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu_check_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
steps=()
while [ $# -gt 0 ] && [[ "$1" != --* ]]; do steps+=("$1"); shift; done
[ ${#steps[@]} -gt 0 ] || steps=(example sanitize pytest bench)
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
for step in "${steps[@]}"; do
  echo "=== $step"
  case "$step" in
    example)
      ./build/gdn2_example 2>&1 | tee "$OUT/example.log" || status=1 ;;
    sanitize)
      # Every tool over the C++ example and the variant matrix (tests/gpu/sanitize_matrix.cu).
      # Logs: $OUT/sanitizer-<tool>-<program>.log; receipt: $OUT/sanitizer_receipt.json.
      # Env: SANITIZE_TOOLS, SANITIZE_PROGRAMS (subsets, space-separated), SANITIZE_MATRIX_ARGS
      # (e.g. --only=mha-T1280,fault-cu), SANITIZE_TIMEOUT (seconds per run), COMPUTE_SANITIZER.
      san=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
      read -r -a tools <<< "${SANITIZE_TOOLS:-memcheck initcheck synccheck racecheck}"
      read -r -a programs <<< "${SANITIZE_PROGRAMS:-gdn2_example gdn2_sanitize_matrix}"
      read -r -a matrix_args <<< "${SANITIZE_MATRIX_ARGS:-}"
      limit=(); [ -n "${SANITIZE_TIMEOUT:-}" ] && limit=(timeout "$SANITIZE_TIMEOUT")
      # racecheck: report every hazard (not only the analysis summary) where this version has the option
      race=(); "$san" --help 2>/dev/null | grep -q -- '--racecheck-report' && race=(--racecheck-report all)
      "$san" --version 2>&1 | tail -1 > "$OUT/sanitizer-version.txt"
      runs="$OUT/sanitizer_runs.tsv"; : > "$runs"
      for prog in "${programs[@]}"; do
        if [ ! -x "./build/$prog" ]; then
          echo "build/$prog is missing: build it with 'ninja -C build $prog'"; status=1
          for tool in "${tools[@]}"; do printf '%s\t%s\t127\t\t\t0\tmissing\n' "$tool" "$prog" >> "$runs"; done
          continue
        fi
        args=(); [ "$prog" = gdn2_sanitize_matrix ] && args=("${matrix_args[@]}")
        for tool in "${tools[@]}"; do
          extra=()
          [ "$tool" = memcheck ] && extra=(--leak-check full)
          [ "$tool" = racecheck ] && extra=("${race[@]}")
          log="$OUT/sanitizer-$tool-$prog.log"
          start=$SECONDS
          "${limit[@]}" "$san" --tool "$tool" "${extra[@]}" --error-exitcode 9 "./build/$prog" "${args[@]}" \
            > "$log" 2>&1
          rc=$?
          errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9][0-9]*\) error.*/\1/p' "$log" | tail -1)
          hazards=$(sed -n 's/.*RACECHECK SUMMARY: \([0-9][0-9]*\) hazard.*/\1/p' "$log" | tail -1)
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$prog" "$rc" "${errors:-}" "${hazards:-}" \
            "$((SECONDS - start))" "${extra[*]} ${args[*]}" >> "$runs"
          echo "compute-sanitizer $tool $prog: exit $rc, ${errors:-unknown} errors${hazards:+, $hazards racecheck hazards}, $((SECONDS - start)) s"
          grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|FAIL' "$log" | tail -5
          # racecheck prints a hazard summary instead of an error summary
          if [ "$tool" = racecheck ]; then ok_count=${hazards:-x}; else ok_count=${errors:-x}; fi
          [ "$rc" -eq 0 ] && [ "$ok_count" = 0 ] && [ "${hazards:-0}" = 0 ] || status=1
        done
      done
      python3 - "$runs" "$OUT/sanitizer_receipt.json" "$OUT/gpu.txt" "$OUT/sanitizer-version.txt" <<'PY' || status=1
import datetime, json, os, subprocess, sys
runs_path, receipt_path, gpu_path, version_path = sys.argv[1:5]
def read(path):
    try:
        return open(path).read().strip()
    except OSError:
        return ""
commit = os.environ.get("GDN2_COMMIT") or subprocess.run(
    ["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
runs = []
for line in open(runs_path):
    tool, program, rc, errors, hazards, seconds, options = line.rstrip("\n").split("\t")
    runs.append({"tool": tool, "program": program, "options": options.strip(),
                 "exit_code": int(rc), "errors": int(errors) if errors else None,
                 "racecheck_hazards": int(hazards) if hazards else None,
                 "seconds": int(seconds), "log": f"sanitizer-{tool}-{program}.log"})
# racecheck reports hazards, not errors: its count must be present and zero instead
clean = bool(runs) and all(
    r["exit_code"] == 0 and not r["racecheck_hazards"] and
    (r["racecheck_hazards"] == 0 if r["tool"] == "racecheck" else r["errors"] == 0) for r in runs)
receipt = {"what": "compute-sanitizer over build/gdn2_example and build/gdn2_sanitize_matrix",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "commit": commit, "gpu": read(gpu_path).splitlines()[-1:] or [""],
           "sanitizer": read(version_path), "runs": runs, "clean": clean}
receipt["gpu"] = receipt["gpu"][0]
json.dump(receipt, open(receipt_path, "w"), indent=2)
print(f"sanitizer receipt: {receipt_path}: {len(runs)} runs, {'clean' if clean else 'NOT CLEAN'}")
PY
      ;;
    stress)
      # Issue 4 deliverable 1 (minutes): >= 100,000 launches + CUDA-graph replays, JSON receipt.
      read -r -a stress_args <<< "${STRESS_ARGS:-}"
      python3 tests/stress/stress.py --out "$OUT/stress.json" "${stress_args[@]}" 2>&1 | tee "$OUT/stress.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1 ;;
    pytest)
      python3 -m pytest tests/python -q -rs --durations=10 -p no:cacheprovider 2>&1 | tee "$OUT/pytest.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1 ;;
    bench)
      python3 bench/bench.py --out "$OUT/bench" "$@" 2>&1 | tee "$OUT/bench.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1 ;;
  esac
done
exit $status
