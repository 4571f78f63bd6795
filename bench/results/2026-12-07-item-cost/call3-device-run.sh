#!/bin/bash
# Session of 2026-12-07 from 10:15, call 3: la (lookahead-probe.patch, -DGDN2_PROBE_LOOKAHEAD), a
# timing probe of the pair form's consumers with each block's first product issued in the block
# before (wrong results): block n's consumers issue S_n^T diag(D_n) [Kb; Qg]^T (16 k-steps, block n's
# kq standing in for block n + 1's) while T's product runs, and a 2-k-step product of U^T stands in
# for U^T C (C = Kend_n [Kb; Qg]_{n+1}^T); block n + 1 starts from that accumulator. Only the pair
# form's rows count: in the two-consumer forms ptxas serialised the probe's wgmma (C7512).
# Against main (3f4d0a3's build); both builds' timelines of the pair form.
# Carry: tar czf tools_tmp/c3.tgz -C tools_tmp ab1/main ab1/la; bench/results moved out.
tar xzf tools_tmp/c3.tgz -C tools_tmp || exit 2
BASE=main VARIANTS=la AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=5 LENGTHS=0 TIMELINE_ROWS="S1-fused B4x4K-fused" CHECKS=0 \
ROWS=S1,B4x4K-MHA BENCH_ARGS=--max-seqlen GATE_ROWS=S1,B4x4K-MHA NUMERICS_CHANGE=la bash scripts/device_ab.sh
cat $OUT/r/medians.txt; grep -h -A6 "fused path" $OUT/r/timeline-*.log | cut -c1-220
