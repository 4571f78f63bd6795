#!/bin/bash
# Session of 2026-12-07 from 14:22, call 1. (a) The previous session's call 3, never run:
# pass-lookahead-probe.patch (bench/results/2026-12-07-pass-lookahead/) with -DLA_T2 (T
# double-buffered, T_{c+2} issued once T_c is read) as la-t2, and with -DLA_T2 -DLA_NOP as
# la-noptwo, against main (3f4d0a3's build: 3089a63's kernels, the same as this session's start,
# 67ab223). Timing only; three rounds. (b) On an H200 only: main's whole table with the
# accuracy check, FLA 0.6.0 row by row in the same process, then the GPU tests with the time left.
# Carry: tools_tmp/c6.tgz, tools_tmp/wheels, python/gdn2/*.so (main's build); bench/results moved out.
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
tar xzf tools_tmp/c6.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="la-t2 la-noptwo" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S5,L32K BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE="la-t2 la-noptwo" bash scripts/device_ab.sh
cat $OUT/r/medians.txt; cat $OUT/r/times.log
# (b), inline when this call ran (it stopped at the GPU check: an H100), is the same as the
# script called here, with the deadline counted from this call's start.
C=67ab223 DEADLINE=$(( 570 - ($(date +%s) - t0) )) bash bench/results/2026-12-07-item-cost/h200-main-device-run.sh
