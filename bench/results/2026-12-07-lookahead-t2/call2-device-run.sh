#!/bin/bash
# Session of 2026-12-07 from 14:22, call 2: is la's extra time the wait for the copy of C (with M,
# Kend^T, gamma), which the probe issues only once every reader of the previous one is done (RU's
# C U of the next chunk included), less than a chunk before RU needs it? la-nopc: la-nop (call 2
# of the session before: no P products) with C double-buffered in the second Kp buffer's space
# (-DLA_NOP -DLA_C2, lookahead-buffers-probe.patch), C_{c+1} issued by Out once U_c is complete, a chunk before
# RU reads it. Against main (3f4d0a3's build) and la-nop (the session before's build). Timing only.
# Carry: tar czf tools_tmp/c7.tgz -C tools_tmp ab1/main ab1/la-nop ab1/la-nopc; bench/results moved out.
tar xzf tools_tmp/c7.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="la-nop la-nopc" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S5,L32K BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE="la-nop la-nopc" bash scripts/device_ab.sh
cat $OUT/r/medians.txt; cat $OUT/r/times.log; grep -h one-chunk $OUT/r/compare-*.log
