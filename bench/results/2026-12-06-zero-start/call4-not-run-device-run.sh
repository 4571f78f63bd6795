#!/bin/bash
# Session 2026-12-06 from 11:45, call 4: the fused timeline (GDN2_PHASE1_TIMELINE builds) of main
# 484d76e (tl) and of the landed zero-start code (tlz), alternating, on S1-fused and the persistent
# forms' item timelines (64x256-fused, 128x1-fused).
set -u
R=$OUT/n; mkdir -p $R
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for round in 1 2; do for b in tl tlz; do
  timeout 90 ./tools_tmp/$b/gdn2_phase1_timeline S1-fused 64x256-fused 128x1-fused > $R/timeline-$b-$round.log 2>&1; echo "rc=$?" >> $R/timeline-$b-$round.log; mark timeline-$b-$round; pack
done; done
cat $R/times.log; pack
