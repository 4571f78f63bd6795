#!/bin/bash
# Session of 2026-12-07 from 09:13, call 5: gs (3089a63's kernels) against wvp (the GVA pair's w*v
# formed by each CTA's producer in the slot, over the v and w there; the consumers read it as the
# 128-channel form's do; the producer arrives on the other CTA's blocks' `full`). Its persistent
# kernel spills 32 bytes (item-level state of the producer/solver warpgroups). Outputs compared
# (bit for bit expected), six alternating rounds, then on the pick the example, the fused GPU
# tests, racecheck, memcheck and synccheck over the GVA pair's cases, and the stress test.
# Carry: tar czf tools_tmp/c4.tgz -C tools_tmp ab1/gs ab1/wvp; bench/results moved out.
tar xzf tools_tmp/c4.tgz -C tools_tmp || exit 2
CASES=fused-gvapair-strong-300+129+17+1+300,fused-gvapair-fewstrong-300+129+17+1+300,fused-gvapair-one-item-257x128,fault-cu-fused-gvapair,fault-cu-fused-gvapair-persistent,fused-gvapair-300+129+17+1+300-pool,fused-gvapair-one-item-257x128-pool-bf16,fused-pair-300+129+17+1,fused-persistent-1x200
BASE=gs VARIANTS=wvp AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=6 LENGTHS=0 TIMELINE_ROWS= \
  ROWS=S3,B8x2K-MHA,N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 BENCH_ARGS=--max-seqlen \
  GATE_ROWS=N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 MAX_ROW=1.03 \
  PYTEST_ARGS="tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py -k fused" PYTEST_TIMEOUT=120 \
  SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_TIMEOUT=90 SANITIZE_LIMIT=200 \
  SANITIZE_MATRIX_ARGS=--only=$CASES FINAL=0 bash scripts/device_ab.sh
cat "$OUT/r/times.log" "$OUT/r/medians.txt" "$OUT/r/gate.txt"
tail -n 3 "$OUT/r/compare-wvp.log" "$OUT/r/pytest.log" "$OUT/r/example.log" "$OUT/r/stress.log" 2>/dev/null
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" "$OUT"/r/san/*.log 2>/dev/null | sort | uniq -c
