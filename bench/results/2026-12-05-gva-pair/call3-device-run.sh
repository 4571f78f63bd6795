#!/bin/bash
# Call 3 of the GVA pair (session of 2026-12-05 from 19:07): g against gn (g with the consumers'
# loads of v and w replaced by a value formed from the address, no load: wrong results) on the
# GVA-2 rows at scale forced onto the fused path, one round: what the loads cost.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for V in g gn; do
  cp $T/$V/python/gdn2/*.so python/gdn2/
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 --out $R/fu-$V-1 > $R/fu-$V-1.log 2>&1; echo "rc=$?" >> $R/fu-$V-1.log
done
for f in $R/fu-*/results.md; do echo $f; grep -E '^\| (N64|B8x2K|B4x4K)' $f | cut -d'|' -f2,7; done
tar czf $OUT/r.tgz -C $OUT r
