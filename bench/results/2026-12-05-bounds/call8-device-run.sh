#!/bin/bash
# Call 8 (session of 2026-12-05 from 19:07): m against pq (apply_bound_probe.py v64quarter: the
# pair form's CTAs form only the blocks n with n % 4 < 2, wrong results), the one-wave rows forced
# onto the fused path, two rounds: the bound of a GVA-2 group's four CTAs (two value heads x two
# slices) sharing their key side, each forming every fourth block, without the extra copies.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
for round in 1 2; do
  for V in m pq; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,S4,S5,B4x4K-MHA --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
for f in $R/fu-*/results.md; do echo $f; grep -E '^\| (S1|S2|S4|S5|B4x4K)' $f | cut -d'|' -f2,7; done
cat $R/gpu.txt $R/times.log
