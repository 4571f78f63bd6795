#!/bin/bash
# Call 7 (session of 2026-12-05 from 19:07): m against ph (apply_bound_probe.py v128half: the
# 128-channel form forms only the even blocks' key side, wrong results), the rows at scale that
# take the 128-channel form, forced onto the fused path, two rounds: the bound of a GVA group's two
# value heads sharing their key side as a cluster (each CTA forming every other block) without the
# cost of the copies.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
ROWS=S3-MHA-PACKED-T4096,N64-MIXED-MHA,N64-MIXED-GVA2,B8x2K-MHA,B8x2K-GVA2,B4x4K-GVA2
for round in 1 2; do
  for V in m ph; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows $ROWS --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
for f in $R/fu-*/results.md; do echo $f; grep -E '^\| (S3|N64|B8x2K|B4x4K)' $f | cut -d'|' -f2,7; done
cat $R/gpu.txt $R/times.log
