#!/bin/bash
# Session of 2026-12-07 from 16:01, call 4 (this folder's call 1). A TIMING PROBE of the one-product chain in the
# register-state pass (one-product-probe.patch on 73eb808, -DONE_PRODUCT_PROBE: op1): per chunk
# Y^T = (w v)^T T^T beside the state's conversion, then S1^T = S^T diag(gamma) + S^T A^T + Y^T Kend
# and O^T = S^T Q'^T + Y^T M^T in one batch, with stand-ins for A^T (Kend^T and Kb) and Q'^T (Qg):
# its outputs are not the recurrence's (NUMERICS_CHANGE=op1). Against main (3f4d0a3's build):
# three rounds of S4 (the 64-channel pass), B8x2K-MHA and B4x4K-MHA forced onto the chunked path
# (the 128-channel pass); then each build's GPU time per kernel on S4 (bench/profile_kernels.py).
# Carry: tools_tmp/c13.tgz (ab1/main, ab1/op1); bench/results moved out.
tar xzf tools_tmp/c13.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="op1" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S4,B8x2K-MHA,B4x4K-MHA BENCH_ARGS="--max-seqlen --algorithm chunked" GATE_ROWS=S4 NUMERICS_CHANGE=op1 \
bash scripts/device_ab.sh
for v in main op1; do
  (cd tools_tmp/ab1/$v && PYTHONPATH=python timeout 60 python3 bench/profile_kernels.py --rows S4,B8x2K-MHA --calls 20) > $OUT/r/profile-$v.log 2>&1
done
tar czf $OUT/r.tgz -C $OUT r
cat $OUT/r/medians.txt; cat $OUT/r/gate.txt; cat $OUT/r/times.log; cat $OUT/r/profile-main.log $OUT/r/profile-op1.log | tail -40
