#!/bin/bash
# Session of 2026-12-07 from 12:18, call 3: la-nop (call 2) was 13-17% slower than main with 16
# fewer k-steps per chunk, so the probe's protocol, not its products, cost most of call 1's 20%.
# Suspect: T_{c+1}'s copy, issued only once RU's T_c R_c is done, about 8 k-steps and one store
# before RU needs it. pass-lookahead-probe.patch with -DLA_T2: T double-buffered (16 KB more,
# 230,024 B in all), T_{c+2} issued once T_c is read. la-t2 (-DLA_T2) and la-noptwo (-DLA_T2
# -DLA_NOP) against main (3f4d0a3's build). Timing only.
# Carry: tar czf tools_tmp/c6.tgz -C tools_tmp ab1/main ab1/la-t2 ab1/la-noptwo; bench/results moved out.
tar xzf tools_tmp/c6.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="la-t2 la-noptwo" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=2 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,L32K-MHA BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE="la-t2 la-noptwo" bash scripts/device_ab.sh
cat $OUT/r/medians.txt; cat $OUT/r/times.log
