#!/bin/bash
# Call 2: bench without and with the hint for m0 and x1 on the same GPU, the stress run (x1), the
# crossovers (x1) for kAuto's refit.
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
for V in m0 x1; do
  use $V
  timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench-$V > $R/bench-$V.log 2>&1; echo "rc=$?" >> $R/bench-$V.log
  timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint-$V > $R/bench-hint-$V.log 2>&1; echo "rc=$?" >> $R/bench-hint-$V.log
  mark bench-$V
done
use x1
for S in long short; do
  L=$(cap 470 150); [ $L -gt 20 ] && { timeout $L python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S; }
done
L=$(cap 585 100); [ $L -gt 60 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; tail -2 $R/stress.log; }
cat $R/times.log
