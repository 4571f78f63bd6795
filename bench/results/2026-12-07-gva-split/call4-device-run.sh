#!/bin/bash
# Session of 2026-12-07 from 09:13, call 4: gs (3089a63's kernels) against os (the consumers' output
# through shared memory: stmatrix .trans, then one 16-byte store per lane), through
# scripts/device_ab.sh: outputs compared (bit for bit expected), five alternating rounds of the fused
# rows, then on the pick the example, the fused GPU tests, racecheck, memcheck and synccheck over
# 22 fused cases of every form, and the stress test.
# Carry: tar czf tools_tmp/c3.tgz -C tools_tmp ab1/gs ab1/os; bench/results moved out.
tar xzf tools_tmp/c3.tgz -C tools_tmp || exit 2
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-pair-fewstrong-300+129+17+1,fused-auto-mha-T64,fused-mha-rand20,fault-cu-fused
CASES=$CASES,fused-v128-mha-rand40,fused-v128-mha-T33,fused-v128-one-item-4097x1,fault-cu-fused-v128-one-item
CASES=$CASES,fused-persistent-1x200,fused-persistent-long-60,fused-v128-strong-rand70,fused-v128-fewstrong-rand70,fused-v128-unordered-300,fault-cu-fused-v128
CASES=$CASES,fused-gvapair-strong-300+129+17+1+300,fused-gvapair-fewstrong-300+129+17+1+300,fused-gvapair-one-item-257x128,fault-cu-fused-gvapair,fault-cu-fused-gvapair-persistent,fused-gvapair-300+129+17+1+300-pool
BASE=gs VARIANTS=os AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=5 LENGTHS=0 TIMELINE_ROWS= \
  ROWS=S1,S3,N64-MIXED-MHA,B8x2K-MHA,B4x4K-MHA,N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 BENCH_ARGS=--max-seqlen \
  GATE_ROWS=S1,S3,N64,B8x2K,B4x4K MAX_ROW=1.02 \
  PYTEST_ARGS="tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py -k fused" PYTEST_TIMEOUT=120 \
  SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_TIMEOUT=90 SANITIZE_LIMIT=280 \
  SANITIZE_MATRIX_ARGS=--only=$CASES FINAL=0 bash scripts/device_ab.sh
cat "$OUT/r/times.log" "$OUT/r/medians.txt" "$OUT/r/gate.txt"
tail -n 3 "$OUT/r/pytest.log" "$OUT/r/example.log" "$OUT/r/stress.log" 2>/dev/null
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" "$OUT"/r/san/*.log 2>/dev/null | sort | uniq -c
