#!/bin/bash
# Session of 2026-12-07 from 09:13, call 7: gs (3089a63's kernels) against wf (the GVA pair's
# consumers keep v and w as bf16 pairs past the first product and form R^T = w*v + x in one fma,
# w*v being exact in fp32; v and w masked only in a sequence's last block). Outputs compared (bit
# for bit expected), eight alternating rounds, then on the pick the example, the fused GPU tests,
# racecheck, memcheck and synccheck over the GVA pair's cases, and the stress test.
# Carry: tar czf tools_tmp/c6.tgz -C tools_tmp ab1/gs ab1/wf; bench/results moved out.
tar xzf tools_tmp/c6.tgz -C tools_tmp || exit 2
CASES=fused-gvapair-strong-300+129+17+1+300,fused-gvapair-fewstrong-300+129+17+1+300,fused-gvapair-one-item-257x128,fault-cu-fused-gvapair,fault-cu-fused-gvapair-persistent,fused-gvapair-300+129+17+1+300-pool,fused-gvapair-one-item-257x128-pool-bf16
BASE=gs VARIANTS=wf AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=8 LENGTHS=0 TIMELINE_ROWS= \
  ROWS=S3,N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 BENCH_ARGS=--max-seqlen \
  GATE_ROWS=N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 MAX_ROW=1.02 \
  PYTEST_ARGS="tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py -k fused" PYTEST_TIMEOUT=120 \
  SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_TIMEOUT=60 SANITIZE_LIMIT=150 \
  SANITIZE_MATRIX_ARGS=--only=$CASES FINAL=0 bash scripts/device_ab.sh
cat "$OUT/r/times.log" "$OUT/r/medians.txt" "$OUT/r/gate.txt"
tail -n 3 "$OUT/r/compare-wf.log" "$OUT/r/pytest.log" "$OUT/r/example.log" "$OUT/r/stress.log" 2>/dev/null
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" "$OUT"/r/san/*.log 2>/dev/null | sort | uniq -c
