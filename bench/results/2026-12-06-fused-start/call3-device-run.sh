#!/bin/bash
# Session 2026-12-06 from 12:51, call 3 (call 2 trimmed to the device time left): the fused start
# (package fs) against the landed build (zb: main 9df62ab's kernels) by scripts/device_ab.sh: the
# programmatic-launch probe, the outputs compared, two rounds of the rows the change reaches or
# perturbs, S1's timeline; on the gate's pick the fused-start, overlapped, canonical-row and
# bad-input GPU tests and three sanitizers over the fused-start cases.
# Carry: tar czf tools_tmp/c3.tgz -C tools_tmp zb fs s9 ; command: tar xzf tools_tmp/c3.tgz -C tools_tmp && bash tools_tmp/s9/call3.sh
export EXTRA="./tools_tmp/fs/bin/gdn2_pdl_order_probe 20"
export BASE=zb VARIANTS=fs GATE_ROWS=S2 NUMERICS_CHANGE=fs MAX_ROW=1.03 MAX_GEOMEAN=0.99 ROUNDS=2
export TIMELINE_ROWS="S1" ROWS="S1,S2,S5,L32K-MHA,B4x4K-MHA" LENGTHS=0
F=tests/python/test_forward_gpu.py
export PYTEST_ARGS="$F::test_fused_start $F::test_fused_start_is_the_fused_call_then_the_chunked_call $F::test_overlapped_pass $F::test_canonical_rows tests/python/test_bad_input_gpu.py"
export PYTEST_TIMEOUT=100
export SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_PROGRAMS=gdn2_sanitize_matrix
export SANITIZE_MATRIX_ARGS="--only=mha-T705-start,fault-cu-overlapped"
export FINAL=0 STRESS=0
bash scripts/device_ab.sh
tar czf $OUT/r.tgz -C $OUT r
