#!/bin/bash
# Session of 2026-12-07 from 10:15, call 2: fl (state-full-lines.patch), the persistent 128-channel form's final state stored
# in whole 128-byte rows (each warp access 4 rows x 32 channels, one exchange of quads between
# lanes l and l ^ 16) instead of 8 rows x 16 channels, against main (3f4d0a3's build); outputs
# compared bit for bit; on the gate's pick the persistent-form tests and memcheck over the
# persistent cases. On an H200, main's whole table first (EXTRA).
# Carry: tar czf tools_tmp/c2.tgz -C tools_tmp ab1/main ab1/fl; bench/results moved out.
tar xzf tools_tmp/c2.tgz -C tools_tmp || exit 2
EXTRA='T=tools_tmp/ab1/main; if grep -q H200 $R/gpu.txt; then (cd $T && GDN2_COMMIT=3f4d0a3 timeout 120 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-main > $R/full-main.log 2>&1); fi' \
BASE=main VARIANTS=fl AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=5 LENGTHS=0 TIMELINE_ROWS= \
ROWS=N64,B8x2K,S3 BENCH_ARGS=--max-seqlen GATE_ROWS=N64-MIXED-MHA,S3,B8x2K-MHA \
PYTEST_ARGS="tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py" \
PYTEST_TIMEOUT=170 SANITIZE_TOOLS=memcheck SANITIZE_MATRIX_ARGS=--only=fused-persistent-1x200,fused-persistent-1x300,fused-persistent-long-60,fused-persistent-mha-rand70-pool,fused-persistent-mha-rand70-pool-bad-index,fused-persistent-mha-rand70-pool-bf16 \
SANITIZE_LIMIT=120 FINAL=0 STRESS=0 bash scripts/device_ab.sh
cat $OUT/r/medians.txt $OUT/r/gate.txt 2>/dev/null; tail -2 $OUT/r/compare-fl.log $OUT/r/pytest.log $OUT/r/sanitize.log 2>/dev/null
