#!/bin/bash
# Session of 2026-12-07 from 16:01, call 5 (this folder's call 2). Call 4's probe (op1) released Kb/Qg and the
# double-buffered group only after its one batch, so every chunk's copies were issued at the
# chunk's end and waited for at the next one's start. op2 (one-product-probe-2.patch on 73eb808):
# the batch reads only the double-buffered group (A^T stood in by Kend^T read twice, Q'^T by Kend^T),
# Kb/Qg released unread as soon as they land, T after Y's product. TIMING PROBE: outputs are not
# the recurrence's. Two rounds of S4 and B4x4K-MHA (chunked) against main; each build's GPU time
# per kernel on S4. Carry: tools_tmp/c14.tgz (ab1/main, ab1/op2); bench/results moved out.
tar xzf tools_tmp/c14.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="op2" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=2 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S4,B4x4K-MHA BENCH_ARGS="--max-seqlen --algorithm chunked" GATE_ROWS=S4 NUMERICS_CHANGE=op2 \
bash scripts/device_ab.sh
for v in main op2; do
  (cd tools_tmp/ab1/$v && PYTHONPATH=python timeout 40 python3 bench/profile_kernels.py --rows S4 --calls 20) > $OUT/r/profile-$v.log 2>&1
done
tar czf $OUT/r.tgz -C $OUT r
cat $OUT/r/medians.txt; cat $OUT/r/gate.txt; grep -h "S4" $OUT/r/profile-main.log $OUT/r/profile-op2.log; cat $OUT/r/gpu.txt
