#!/bin/bash
# Call 3: the fused start-up probed (timeline builds only, a throwaway patch of marks between the
# kernel's start and its first copies: checks of cu_seqlens done, barriers initialised, descriptors
# prefetched, block 0 requested): m's prologue, and e1's (the descriptors' prefetch first).
set -u
R=$OUT/r; mkdir -p $R
T=$PWD/tools_tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for round in 1 2; do
  for V in m e1; do
    timeout 40 $T/tp/bin/gdn2_phase1_timeline_$V S1-fused B8x2K-fused 64x256-fused > $R/timeline-$V-$round.log 2>&1; echo "rc=$?" >> $R/timeline-$V-$round.log
  done
done
tar czf $OUT/r.tgz -C $OUT r
grep -H 'probes\|start-up, median' $R/timeline-*.log
