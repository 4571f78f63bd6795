#!/bin/bash
# Session of 2026-12-07 from 14:22, the pass's waits: main's 32-channel pass (3089a63's kernels)
# with eight more timeline marks (commit 8aff443, on 36dc78c: when each wait for a factor
# group ends and each product after it is done; RU, the first state warpgroup, Out), so that a
# chunk's time splits into waits for copies and products. Built on the CPU machine:
# cmake -S . -B build-timeline -G Ninja -DGDN2_PHASE1_TIMELINE=ON && ninja -C build-timeline gdn2_phase1_timeline
# Carry: tools_tmp/tl/gdn2_phase1_timeline; bench/results moved out.
R=$OUT/t; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt; cat $R/gpu.txt
for k in 1 2; do
  timeout 100 ./tools_tmp/tl/gdn2_phase1_timeline S2 L32K > $R/timeline-$k.log 2>&1; echo "rc=$?" >> $R/timeline-$k.log
done
grep -A22 "32-channel pass" $R/timeline-1.log | head -60
