#!/bin/bash
# Call 4 (session of 2026-12-05 from 14:53): what call 3 left out for x3 (= main eff9c8f's kernels):
# the example, the stress run at half its default size (the device time left); then, as time allows, S1 and B8x2K with the hint, p3 and x3
# alternating (S1 was +4% in call 3's one run).
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
use() { cp $T/$1/bin/* build/; cp $T/$1/python/gdn2/*.so python/gdn2/; }
use x3
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 60 55); [ $L -gt 30 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --launches 50000 --graph-replays 5000 --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
for round in 1 2 3; do
  for V in p3 x3; do
    use $V
    timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B8x2K-MHA --out $R/bench-hint-$V-$round > $R/bench-hint-$V-$round.log 2>&1; echo "rc=$?" >> $R/bench-hint-$V-$round.log
  done
  mark round-$round
done
tail -2 $R/example.log; tail -2 $R/stress.log; cat $R/times.log
