#!/usr/bin/env bash
# A same-call A/B run on the device (docs/performance.md's method): builds made elsewhere, each
# version run from its own copy, so that bench.py imports that version's library.
#
# Each version NAME is a folder $AB_TOOLS/NAME (default tools_tmp/NAME) holding python/ (gdn2 with
# its built libraries), bench/*.py and bin/ (gdn2_example, gdn2_sanitize_matrix, gdn2_tf32_rounding,
# and gdn2_phase1_timeline unless TIMELINE_ROWS is empty, from the same build).
#
# Steps, results under $OUT/r (packed into $OUT/r.tgz after each step: the device returns few files):
#  1. gpu.txt; every variant's outputs against the base's (bench/outputs_bitwise.py: compare-V.log);
#  2. ROUNDS rounds (default 2, at most 9) of bench/sequence_lengths.py (lengths.jsonl; LENGTHS=0:
#     none) and `bench.py --no-fla --no-accuracy` (<version><round>/; ROWS: its --rows, default every
#     row; BENCH_ARGS: more of its arguments, e.g. --max-seqlen) for every version, versions
#     alternating; medians.txt: each row's median graph time per version and the variants' change;
#  3. the gate (bench/ab_gate.py over GATE_ROWS, MAX_GEOMEAN, MAX_ROW, and NUMERICS_CHANGE: the
#     variants whose outputs may differ from the base's, their accuracy left to pytest: gate.txt);
#  4. timelines (`gdn2_phase1_timeline $TIMELINE_ROWS`, default "S2 L32K"; TIMELINE_ROWS="": none;
#     timeline-V.log);
#  5. unless CHECKS=0, on the gate's pick: its C++ example, pytest (PYTEST_ARGS: test paths or node
#     ids, default tests/python; PYTEST_TIMEOUT, default 100 s), the sanitizers (SANITIZE_TOOLS, default
#     all four; SANITIZE_MATRIX_ARGS, e.g. --only=mha-T1280,fault-cu: the matrix's cases to run; default
#     all; SANITIZE_LIMIT: seconds for them all, default 150), the final run with
#     accuracy (final/; FINAL=0: none) and the stress test (STRESS=0: none).
# Before all of it, EXTRA (a command line, run from the repository root with $R set) where given:
# a probe of the call's own.
# Then `python3 bench/same_call_tables.py` reads the rounds once they are copied into a results
# folder as callN-rows-<version><round>.md and callN-lengths.jsonl.
#
# The device copies the checkout (tracked files, and the carried paths) up to 64 MiB, and
# bench/results/ alone is about 63 MiB on disk (7,600 files, most under 4 KB): a call that
# carries builds is refused unless bench/results/ is moved out of the checkout for it (nothing
# here reads it; the CPU tests that do run in CI) and back after.
#
# usage: BASE=poll VARIANTS="ls3 ls4" GATE_ROWS=S1,S2,S5,L32K bash scripts/device_ab.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
: "${BASE:?BASE: the name of the base version}" "${VARIANTS:?VARIANTS: the names of the variants, space-separated}"
: "${GATE_ROWS:?GATE_ROWS: prefixes of the rows the change runs on, e.g. S1,S2,S5,L32K}"
T=${AB_TOOLS:-$PWD/tools_tmp}
ROUNDS=${ROUNDS:-2}
TIMELINE_ROWS=${TIMELINE_ROWS-S2 L32K}
read -r -a variants <<< "$VARIANTS"
for v in "$BASE" "${variants[@]}"; do
  for need in python/gdn2 bench/bench.py ${TIMELINE_ROWS:+bin/gdn2_phase1_timeline}; do
    if [ ! -e "$T/$v/$need" ]; then echo "device_ab: $T/$v/$need is missing (see the header of $0)" >&2; exit 2; fi
  done
done
if ! command -v nvidia-smi > /dev/null; then echo "device_ab: no nvidia-smi: this runs on the GPU machine" >&2; exit 2; fi
OUT=${OUT:-$PWD/device_ab_out}
R=$OUT/r; mkdir -p "$R"
export PYTHONUNBUFFERED=1
pack() { tar czf "$OUT/r.tgz" -C "$OUT" r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> "$R/times.log"; pack; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$R/gpu.txt"
if [ -n "${EXTRA:-}" ]; then
  export R
  bash -c "$EXTRA" > "$R/extra.log" 2>&1; echo "rc=$?" >> "$R/extra.log"
  mark "extra done"
fi
for v in "$BASE" "${variants[@]}"; do
  PYTHONPATH=$T/$v/python timeout 90 python3 bench/outputs_bitwise.py dump "$R/dump-$v.pt" > "$R/dump-$v.log" 2>&1
done
for v in "${variants[@]}"; do
  python3 bench/outputs_bitwise.py compare "$R/dump-$BASE.pt" "$R/dump-$v.pt" > "$R/compare-$v.log" 2>&1
  echo "rc=$?" >> "$R/compare-$v.log"
done
rm -f "$R"/dump-*.pt
mark "dumps done"

for k in $(seq 1 "$ROUNDS"); do
  for v in "$BASE" "${variants[@]}"; do
    if [ "${LENGTHS:-1}" != 0 ]; then
      (cd "$T/$v" && PYTHONPATH=$T/$v/python timeout 70 python3 bench/sequence_lengths.py "$v$k" >> "$R/lengths.jsonl" 2>> "$R/lengths.err")
    fi
    # shellcheck disable=SC2086  # BENCH_ARGS is a list of bench.py arguments
    (cd "$T/$v" && GDN2_COMMIT=$v PYTHONPATH=$T/$v/python timeout 70 python3 bench/bench.py --no-fla --no-accuracy \
       --no-chart ${ROWS:+--rows "$ROWS"} ${BENCH_ARGS:-} --out "$R/$v$k" > "$R/$v$k.log" 2>&1)
    mark "$v$k done"
  done
done

python3 bench/ab_gate.py "$R" "$BASE" "${variants[@]}" --medians > "$R/medians.txt" 2>&1
python3 bench/ab_gate.py "$R" "$BASE" "${variants[@]}" --rows "$GATE_ROWS" \
  ${MAX_GEOMEAN:+--max-geomean "$MAX_GEOMEAN"} ${MAX_ROW:+--max-row "$MAX_ROW"} \
  ${NUMERICS_CHANGE:+--numerics-change "${NUMERICS_CHANGE// /,}"} > "$R/gate.txt" 2>&1
if [ -n "$TIMELINE_ROWS" ]; then
  for v in "$BASE" "${variants[@]}"; do
    # shellcheck disable=SC2086  # TIMELINE_ROWS is a list of row names
    timeout 40 "$T/$v/bin/gdn2_phase1_timeline" $TIMELINE_ROWS > "$R/timeline-$v.log" 2>&1
  done
  mark "timelines done"
fi

pick=$(sed -n 's/^PICK //p' "$R/gate.txt")
if [ "${CHECKS:-1}" != 0 ] && [ -n "$pick" ] && [ "$pick" != none ]; then
  mkdir -p build && cp "$T/$pick"/bin/* build/ && cp "$T/$pick"/python/gdn2/*.so python/gdn2/
  ./build/gdn2_example > "$R/example.log" 2>&1; echo "rc=$?" >> "$R/example.log"
  # shellcheck disable=SC2086  # PYTEST_ARGS is a list of pytest arguments
  timeout "${PYTEST_TIMEOUT:-100}" python3 -m pytest -q -rs ${PYTEST_ARGS:-tests/python} > "$R/pytest.log" 2>&1
  echo "rc=$?" >> "$R/pytest.log"
  mark "pytest done"
  OUT=$R/san SANITIZE_TIMEOUT="${SANITIZE_TIMEOUT:-60}" timeout "${SANITIZE_LIMIT:-150}" bash scripts/gpu_check.sh sanitize > "$R/sanitize.log" 2>&1
  mark "sanitize done"
  if [ "${FINAL:-1}" != 0 ]; then
    (cd "$T/$pick" && GDN2_COMMIT=$pick PYTHONPATH=$T/$pick/python timeout 90 python3 bench/bench.py --no-fla \
       --out "$R/final" > "$R/final.log" 2>&1)
    mark "final bench done"
  fi
  if [ "${STRESS:-1}" != 0 ]; then
    PYTHONPATH=python timeout 100 python3 tests/stress/stress.py --out "$R/stress.json" > "$R/stress.log" 2>&1
    mark "stress rc=$?"
  fi
fi
mark "all done"
