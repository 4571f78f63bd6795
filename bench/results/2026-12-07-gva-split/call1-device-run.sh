#!/bin/bash
# Session of 2026-12-07 from 09:13, call 1: main (6db5f91's build) against gs (the GVA pair's slot
# split: its consumers' first product on the producer's part, `solved` for T and P, the other
# CTA's T and P copied onto `solved`), through scripts/device_ab.sh: the outputs compared (bit for
# bit expected), five alternating rounds of the GVA-2 rows at scale with S1, S3 and B8x2K-MHA as
# controls (their kernels' SASS is main's), then on the pick the example, the fused GPU tests, the
# sanitizers over the GVA pair's cases and the final run with accuracy.
# Carry: tar czf tools_tmp/c1.tgz -C tools_tmp ab1/main ab1/gs; bench/results moved out of the checkout.
tar xzf tools_tmp/c1.tgz -C tools_tmp || exit 2
BASE=main VARIANTS=gs AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=5 LENGTHS=0 TIMELINE_ROWS= \
  ROWS=S1,S3,B8x2K-MHA,N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 BENCH_ARGS=--max-seqlen \
  GATE_ROWS=N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 MAX_ROW=1.02 \
  PYTEST_ARGS="tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py -k fused" PYTEST_TIMEOUT=120 \
  SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_TIMEOUT=40 SANITIZE_LIMIT=140 \
  SANITIZE_MATRIX_ARGS=--only=fused-gvapair-strong-300+129+17+1+300,fused-gvapair-fewstrong-300+129+17+1+300,fault-cu-fused-gvapair,fault-cu-fused-gvapair-persistent,fused-gvapair-one-item-257x128 \
  STRESS=0 bash scripts/device_ab.sh
cat "$OUT/r/times.log" "$OUT/r/medians.txt" "$OUT/r/gate.txt" 2>/dev/null
tail -n 3 "$OUT/r/pytest.log" "$OUT/r/example.log" 2>/dev/null
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" "$OUT"/r/san/*.log 2>/dev/null | sort | uniq -c
