#!/bin/bash
# Next call (not run): main's kernels since this session (the device's choice behind one launch
# chain, the exact path by columns) on an H200, which this session never got. Package main's
# build as tools_tmp/main ({python/gdn2/*.so, bin/gdn2_*}, as README.md of this folder says for
# the other builds) and carry it. bench.py without and with the hint (the README table), the
# crossovers for kAuto's refit (`python3 bench/fit_auto.py R/crossover-short/crossover.json
# R/crossover-long/crossover.json` afterwards: the fused estimates predate the exact path by
# columns), then pytest, the sanitizers and the full stress run.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
mkdir -p build
cp $T/main/bin/* build/; cp $T/main/python/gdn2/*.so python/gdn2/
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
for S in long short; do
  L=$(cap 220 80); [ $L -gt 20 ] && { timeout $L python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S; }
done
L=$(cap 400 170); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
L=$(cap 500 95); [ $L -gt 40 ] && { SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" OUT=$R/san SANITIZE_TIMEOUT=90 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; mark sanitize; }
L=$(cap 590 90); [ $L -gt 40 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
tail -2 $R/pytest.log; grep -h 'compute-sanitizer' $R/sanitize.log; tail -2 $R/stress.log; cat $R/times.log
