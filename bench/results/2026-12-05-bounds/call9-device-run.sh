#!/bin/bash
# Call 9 (session of 2026-12-05 from 19:07), asked for an H200 again: m (main's kernels with kAuto's
# refit, the branch autofit) on every row, with the hint and the fp64 accuracy check, then without
# the hint (README's table).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
grep -q H200 $R/gpu.txt || { echo "not an H200: stop"; cat $R/gpu.txt; exit 0; }
cp $T/m/python/gdn2/*.so python/gdn2/
timeout 150 python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
timeout 150 python3 bench/bench.py --no-fla --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
cat $R/bench-hint/results.md | head -30; cat $R/gpu.txt $R/times.log
