#!/bin/bash
# Session of 2026-12-07 from 12:18, call 2: why la (call 1) is slower. pass-lookahead-probe.patch
# (now with two build macros) built two more ways: la-nop (-DLA_NOP: the state
# warpgroups' early products P skipped, zeros stored in their place: the protocol without the
# look-ahead's extra work, fewer k-steps than main's), la-susp (-DLA_SUSP: every mbarrier wait of
# the probe with the suspend-time hint), and noout (noout-probe.patch on 51f7685: main's pass without
# the Out warpgroup's two products, Qg S and M U, 24 of a chunk's 64 k-steps: the bound of moving
# the output's products off the pass's SMs). Against main (3f4d0a3's build). Timing only.
# First: wgmma_rate (wgmma_rate.cu here, built with nvcc 13.0 -O3 --expt-relaxed-constexpr
# -gencode=arch=compute_90a,code=sm_90a -I src): cycles per k-step of the pass's products.
# Carry: tools_tmp/micro/wgmma_rate; tar czf tools_tmp/c5.tgz -C tools_tmp ab1/main ab1/la-nop ab1/la-susp ab1/noout; bench/results moved out.
mkdir -p $OUT/r && timeout 60 tools_tmp/micro/wgmma_rate > $OUT/r/wgmma_rate.log 2>&1; cat $OUT/r/wgmma_rate.log
tar xzf tools_tmp/c5.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="la-nop la-susp noout" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S5,L32K-MHA,L32K-GVA2 BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE="la-nop la-susp noout" bash scripts/device_ab.sh
cat $OUT/r/medians.txt; cat $OUT/r/times.log
