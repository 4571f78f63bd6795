#!/bin/bash
# Call 13: main's kernels (sf3 = 11f8ae2, whose sources 3fb7cee squashes): the crossovers of
# kAuto (bench/algorithm_crossover.py, both sets), to check its picks after the barrier split
# (`python3 bench/fit_auto.py call13/crossover-*/crossover.json` afterwards, on the CPU). On an
# H200, also the benchmark with the accuracy check, with and without the hint (the README's table).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 GDN2_COMMIT=3fb7cee
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
cp $T/sf3/python/gdn2/*.so python/gdn2/
for S in long short; do
  timeout 80 python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S
done
if grep -q H200 $R/gpu.txt; then
  timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
  timeout 90 python3 bench/bench.py --no-fla --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
fi
cat $R/gpu.txt $R/times.log
