#!/bin/bash
# Call 6 (asked for an H200 again, for the README's table): the landed build f's bench with and
# without the hint, and the crossovers (kAuto's estimates against this GPU).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
mkdir -p build
cp $T/f/bin/* build/; cp $T/f/python/gdn2/*.so python/gdn2/
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
for S in long short; do
  timeout 80 python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S
done
cat $R/gpu.txt $R/times.log
