#!/bin/bash
# Call 2 of the GVA pair (session of 2026-12-05 from 19:07): m, g and gx (g with each copy into the
# other CTA replaced by its byte count completed on that CTA's barrier, no data moved: wrong
# results) on the GVA-2 rows at scale forced onto the fused path, two rounds: what the copies cost.
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
  for V in m g gx; do
    use $V
    timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
for f in $R/fu-*/results.md; do echo $f; grep -E '^\| (N64|B8x2K|B4x4K)' $f | cut -d'|' -f2,7; done
cat $R/gpu.txt $R/times.log
