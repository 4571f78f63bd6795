#!/usr/bin/env bash
# GPU checks against an existing build (build/ and python/gdn2/libgdn2_torch.so, e.g. built on
# another machine and copied over): the C++ example, compute-sanitizer, the GPU tests and the
# benchmark. Logs go to $OUT (default ./gpu_check_out). Steps: example sanitize pytest bench
# (default: all), e.g. `scripts/gpu_check.sh pytest bench --quick`.
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
      for tool in memcheck initcheck synccheck racecheck; do
        extra=(); [ "$tool" = memcheck ] && extra=(--leak-check full)
        compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 9 ./build/gdn2_example \
          > "$OUT/sanitizer-$tool.log" 2>&1
        rc=$?; echo "compute-sanitizer $tool: exit $rc, $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer-$tool.log") clean summary"
        tail -2 "$OUT/sanitizer-$tool.log"
        [ $rc -eq 0 ] || status=1
      done ;;
    pytest)
      python3 -m pytest tests/python -q -rs --durations=10 -p no:cacheprovider 2>&1 | tee "$OUT/pytest.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1 ;;
    bench)
      python3 bench/bench.py --out "$OUT/bench" "$@" 2>&1 | tee "$OUT/bench.log"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1 ;;
  esac
done
exit $status
