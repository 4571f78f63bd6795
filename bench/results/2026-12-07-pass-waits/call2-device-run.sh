#!/bin/bash
# Session of 2026-12-07 from 14:22, call 2 (prepared; refused there: too little device time left;
# run in the session from 16:01: README, call 2). Call
# 1's timeline: the state warpgroups wait about 200 cycles past the second barrier for M, Kend^T,
# gamma (issued at the first barrier, landed about 2,150 cycles later), and RU about 300 cycles
# into the chunk for Kb (issued at the previous second barrier). mkend-ktq-probe.patch (on
# 8aff443): mk2a, that group double-buffered, chunk c + 1's issued at chunk c's first barrier;
# mk2b (-DMKEND_AT_SECOND), issued after the second barrier behind Kb, T, Qg; mk2e (-DEARLY_KTQ),
# mk2a and chunk c + 1's Kb, Qg, T issued once their readers in chunk c are done. All must be bit
# for bit main's (NUMERICS_CHANGE empty). Against main (3f4d0a3's build), two rounds; then the
# timelines of main (with call 1's marks), mk2a and mk2e.
# Carry: tar czf tools_tmp/c10.tgz -C tools_tmp ab1/main ab1/mk2a ab1/mk2b ab1/mk2e; tools_tmp/tl
# (gdn2_phase1_timeline, _mk2a, _mk2e: the timeline builds); bench/results moved out.
tar xzf tools_tmp/c10.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="mk2a mk2b mk2e" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=2 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S5,L32K BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE= bash scripts/device_ab.sh
for v in "" _mk2a _mk2e; do
  timeout 60 ./tools_tmp/tl/gdn2_phase1_timeline$v S2 L32K > $OUT/r/timeline$v.log 2>&1; echo "rc=$?" >> $OUT/r/timeline$v.log
done
tar czf $OUT/r.tgz -C $OUT r
cat $OUT/r/medians.txt; cat $OUT/r/gate.txt; cat $OUT/r/times.log; tail -2 $OUT/r/compare-*.log
for v in "" _mk2a _mk2e; do grep -A20 "32-channel pass" $OUT/r/timeline$v.log | head -21; done
