#!/bin/bash
# Session of 2026-12-07 from 16:01, call 1. The 32-channel pass's copies of Kb, T, Qg for chunk
# c + 1 issued after the second barrier by RU's thread 0 (idle there until the next chunk) instead
# of by the second state warpgroup's first thread, whose warpgroup's Kend^T U waits for it
# (issuer-probe.patch, on abc10bc: ruiss, -DRU_ISSUES; ruall, -DRU_ISSUES_ALL: M, Kend^T, gamma
# too, at the first barrier). Only who issues changes: bit for bit main's (NUMERICS_CHANGE
# empty). Three A/B rounds of S2, S5, L32K against main (3f4d0a3's build), then the timelines of
# main (abc10bc: marks where the waits are reached), ruiss, ruall. On an H200, also main's whole
# table, FLA row by row and the GPU tests (../2026-12-07-item-cost/h200-main-device-run.sh with
# main's build).
# Carry: tools_tmp/c11.tgz (ab1/main, ab1/ruiss, ab1/ruall), tools_tmp/tl2 (the three timeline
# builds), tools_tmp/wheels; bench/results moved out.
t0=$(date +%s)
tar xzf tools_tmp/c11.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="ruiss ruall" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S5,L32K BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE= bash scripts/device_ab.sh
for v in "" _ruiss _ruall; do
  timeout 60 ./tools_tmp/tl2/gdn2_phase1_timeline$v S2 L32K > $OUT/r/timeline$v.log 2>&1; echo "rc=$?" >> $OUT/r/timeline$v.log
done
tar czf $OUT/r.tgz -C $OUT r
cat $OUT/r/medians.txt; cat $OUT/r/gate.txt; cat $OUT/r/times.log; for f in $OUT/r/compare-*.log; do tail -n 2 $f; done
for v in "" _ruiss _ruall; do grep -A18 "32-channel pass" $OUT/r/timeline$v.log | head -19; done
if grep -q H200 $OUT/r/gpu.txt; then
  cp tools_tmp/ab1/main/python/gdn2/*.so python/gdn2/
  C=bfbb697 DEADLINE=$(( 585 - ($(date +%s) - t0) )) bash ${H200_SCRIPT:-bench/results/2026-12-07-item-cost/h200-main-device-run.sh}
fi
