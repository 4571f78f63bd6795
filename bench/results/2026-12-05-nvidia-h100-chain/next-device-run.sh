#!/bin/bash
# Landing check of lx3 (branch fused-lx2 at 1e7b228 = lx2 + longest first fixed: `chosen` before the
# blocks' counts (racecheck hazard of call 3, 2026-12-05 H100 round), ordered only up to 8 rounds).
# RUN WITH THE BRANCH fused-lx2 CHECKED OUT. ~590 s. Carry: tools_tmp/c31 (dc1), tools_tmp/c34 (lx2),
# tools_tmp/c36 (lx3), tools_tmp/scripts.
#  1. order_probe + exact_probe: dc1, lx2, lx3 (bitwise vs dc1; lx3 should keep lx2's gains and
#     give back lp1's +6-7% on mixed128x256 and N64-MIXED-GVA2);
#  2. the four sanitizers on the WHOLE matrix (lx3), then the example;
#  3. full pytest, stress; bench no hint and with the hint (path column); crossover --set long (refit).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
for b in c31/dc1 c34/lx2 c36/lx3; do tar xJf $T/$b.tar.xz -C $T; done
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
git log --oneline -1 > $R/tree.txt; git status --short >> $R/tree.txt
for b in dc1 lx2 lx3; do echo "$b: $(cat $T/$b/commit)" >> $R/tree.txt; done
md5sum $T/{dc1,lx2,lx3}/python/gdn2/*.so >> $R/tree.txt
mkdir -p build
use() { cp $T/$1/bin/* build/; cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in dc1 lx2 lx3; do
  use $V
  timeout 110 python3 - "$T/scripts" "/tmp/save-$V" "$([ $V = dc1 ] || echo /tmp/save-dc1)" > $R/probe-$V.log 2>&1 <<'PY'
import runpy, sys
scripts, save, other = sys.argv[1], sys.argv[2], sys.argv[3]
for name in ("order_probe", "exact_probe"):
    sys.argv = [name, save] + ([other] if other else [])
    try:
        runpy.run_path(f"{scripts}/{name}.py", run_name="__main__")
    except Exception as e:
        print(f"{name} failed: {type(e).__name__}: {e}", flush=True)
PY
  echo "rc=$?" >> $R/probe-$V.log
  for j in order exact; do cp /tmp/save-$V/${j}_probe.json $R/$j-$V.json 2>/dev/null; done
  mark probe-$V
done
use lx3; md5sum python/gdn2/*.so build/gdn2_* > $R/validated-lx3.md5
L=$(cap 330 220); SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" OUT=$R/san SANITIZE_TIMEOUT=100 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; sleep 1; mark sanitize; tail -12 $R/sanitize.log
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 480 150); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; tail -3 $R/pytest.log; }
L=$(cap 520 40); [ $L -gt 25 ] && { timeout $L python3 bench/bench.py --no-fla --no-accuracy --out $R/bench-lx3 > $R/bench-lx3.log 2>&1; echo "rc=$?" >> $R/bench-lx3.log; mark bench; tail -16 $R/bench-lx3.log; }
L=$(cap 555 35); [ $L -gt 25 ] && { timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint-lx3 > $R/bench-hint-lx3.log 2>&1; echo "rc=$?" >> $R/bench-hint-lx3.log; mark bench-hint; }
L=$(cap 590 90); [ $L -gt 75 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; tail -2 $R/stress.log; }
# For kAuto's refit after landing (bench/fit_auto.py reads both sets' JSON): the crossovers on lx3.
for S in long short; do
  L=$(cap 598 60); [ $L -gt 15 ] && { timeout $L python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S; }
done
cat $R/times.log
