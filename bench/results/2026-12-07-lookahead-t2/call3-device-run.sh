#!/bin/bash
# Session of 2026-12-07 from 14:22, call 3: la-nopc (call 2) was no faster than la-nop, so C's copy
# is not what la waits for. Next suspect: Qg. The probe's S is single-buffered, so the state
# warpgroups store S_{c+1} only once Out's Qg_c S_c is done, and the probe issues Qg_{c+1} only
# then too: Qg's copy (32 KB) and Out's 16 k-steps are on the state's cycle every chunk.
# la-nopq (-DLA_NOP -DLA_Q2, lookahead-buffers-probe.patch): Qg double-buffered in the second Kp buffer's
# space, Qg_{c+1} issued a chunk earlier (once Out's Qg_{c-1} S_{c-1} is done). Against main
# (3f4d0a3's build) and la-nop. la-nopqs (-DLA_NOP -DLA_Q2 -DLA_S2): also S double-buffered, with
# its barriers, so that the state warpgroups store S_c once Out's Qg_{c-2} S_{c-2} is done (Out's
# product off the state's cycle); Out issues Qg_{c+2} once its Qg_c S_c is done. Timing only.
# Carry: tar czf tools_tmp/c8.tgz -C tools_tmp ab1/main ab1/la-nop ab1/la-nopq ab1/la-nopqs; bench/results moved out.
tar xzf tools_tmp/c8.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="la-nop la-nopq la-nopqs" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S5,L32K BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE="la-nop la-nopq la-nopqs" bash scripts/device_ab.sh
cat $OUT/r/medians.txt; cat $OUT/r/times.log; grep -h one-chunk $OUT/r/compare-*.log
