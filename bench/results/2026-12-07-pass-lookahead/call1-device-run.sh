#!/bin/bash
# Session of 2026-12-07 from 12:18, call 1: la (pass-lookahead-probe.patch on 51f7685), a timing
# probe of the 32-channel pass with the chain's first product one chunk ahead (wrong results by
# design: C stood in by M, Kp by Kb). The state warpgroups form P_{c+1} = Kp_{c+1} S_c over their
# halves of the keys a chunk early; RU's chain is C_{c-1} U_{c-1} (8 k-steps) then T R (8); the
# CTA barriers replaced by mbarriers per buffer. Against main (3f4d0a3's build, the same kernels as
# 51f7685). First: la's outputs dumped twice and compared (a race shows as a difference), and
# racecheck and synccheck on three of la's v32 cases.
# Carry: tar czf tools_tmp/c4.tgz -C tools_tmp ab1/main ab1/la; bench/results moved out.
tar xzf tools_tmp/c4.tgz -C tools_tmp || exit 2
EXTRA='A=$PWD/tools_tmp/ab1/la; for i in 1 2; do PYTHONPATH=$A/python timeout 60 python3 bench/outputs_bitwise.py dump $R/la-$i.pt > $R/la-dump$i.log 2>&1; done; python3 bench/outputs_bitwise.py compare $R/la-1.pt $R/la-2.pt > $R/la-det.log 2>&1; echo rc=$? >> $R/la-det.log; rm -f $R/la-*.pt; mkdir -p build && cp $A/bin/gdn2_sanitize_matrix build/ && OUT=$R/san SANITIZE_TOOLS="racecheck synccheck" SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_MATRIX_ARGS=--only=mha-T512,gva3-T65,mha-T1 SANITIZE_TIMEOUT=50 timeout 110 bash scripts/gpu_check.sh sanitize' \
BASE=main VARIANTS=la AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=5 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S4,S5,L32K-MHA,L32K-GVA2 BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE=la bash scripts/device_ab.sh
cat $OUT/r/medians.txt; cat $OUT/r/la-det.log; cat $OUT/r/san/sanitizer_runs.tsv; cat $OUT/r/times.log
