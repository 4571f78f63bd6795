#!/bin/bash
# Session 2026-12-04c, call 5 (main's kernels): the phase-1 timeline tool as landed (each CTA's first
# item from the CTA's start); bench/outputs_bitwise.py: two dumps of this build (determinism) and one
# of tools_tmp/base (8da1eb3's build: the same kernels), compared bit for bit.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
timeout 40 $T/tl/timeline-head S1 S2 B8x2K > $R/timeline.log 2>&1
echo "timeline done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
for k in 1 2; do (PYTHONPATH=python timeout 60 python3 bench/outputs_bitwise.py dump $R/head$k.pt >> $R/bitwise.log 2>&1); done
(PYTHONPATH=$T/base/python timeout 60 python3 bench/outputs_bitwise.py dump $R/base.pt >> $R/bitwise.log 2>&1)
python3 bench/outputs_bitwise.py compare $R/head1.pt $R/head2.pt > $R/bitwise-head-head.log 2>&1; echo rc=$? >> $R/bitwise-head-head.log
python3 bench/outputs_bitwise.py compare $R/base.pt $R/head1.pt > $R/bitwise-base-head.log 2>&1; echo rc=$? >> $R/bitwise-base-head.log
rm -f $R/*.pt
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
