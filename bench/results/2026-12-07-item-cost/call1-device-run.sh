#!/bin/bash
# Session of 2026-12-07 from 10:15, call 1: where the persistent fused forms' per-item cost goes.
# main: 3f4d0a3's build; nss (state-store-probe.patch, -DGDN2_PROBE_NO_STATE_STORE): the same with the persistent forms' final-state stores predicated off
# (`if (pv.Hv == 12345)`: their code and registers kept, their traffic removed; wrong results,
# timing only). EXTRA: main's persistent-form timelines; on an H200 also main's whole table.
# Carry: tar czf tools_tmp/c1.tgz -C tools_tmp ab1/main ab1/nss; bench/results moved out.
tar xzf tools_tmp/c1.tgz -C tools_tmp || exit 2
EXTRA='T=tools_tmp/ab1/main; $T/bin/gdn2_phase1_timeline 64x256-fused 64x256-gva2-fused B8x2K-fused > $R/timeline-main.log 2>&1;
if grep -q H200 $R/gpu.txt; then (cd $T && GDN2_COMMIT=3f4d0a3 timeout 120 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-main > $R/full-main.log 2>&1); fi' \
BASE=main VARIANTS=nss AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=N64,B8x2K,S3 BENCH_ARGS=--max-seqlen GATE_ROWS=N64,B8x2K,S3 NUMERICS_CHANGE=nss bash scripts/device_ab.sh
cat $OUT/r/medians.txt 2>/dev/null; grep -A4 "fused path" $OUT/r/timeline-main.log | cut -c1-250
