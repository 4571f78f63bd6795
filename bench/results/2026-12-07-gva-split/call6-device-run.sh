#!/bin/bash
# Session of 2026-12-07 from 09:13, call 6: main c7f914a's build (3089a63's kernels: the gs package
# of calls 1-5) on whatever GPU comes: the whole table with the hint and the accuracy check
# (`bench.py --no-fla --max-seqlen`), memcheck and synccheck over the whole sanitizer matrix,
# racecheck over its 52 fused cases.
# Carry: tar czf tools_tmp/c5.tgz -C tools_tmp ab1/gs; bench/results moved out.
tar xzf tools_tmp/c5.tgz -C tools_tmp || exit 2
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s); mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; tar czf $OUT/r.tgz -C $OUT r; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp tools_tmp/ab1/gs/python/gdn2/*.so python/gdn2/; mkdir -p build; cp tools_tmp/ab1/gs/bin/* build/
GDN2_COMMIT=c7f914a PYTHONPATH=python timeout 150 python3 bench/bench.py --no-fla --max-seqlen --out $R/full > $R/full.log 2>&1; echo "rc=$?" >> $R/full.log; mark full
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck synccheck" OUT=$R/san SANITIZE_TIMEOUT=120 timeout 250 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; mark sanitize
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS=racecheck SANITIZE_MATRIX_ARGS=--only=fused-auto-mha-T64,fused-gva2-8x40,fused-gva3-65+63+1-validate,fused-mha-rand20,fused-gva4-T200,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-pair-fewstrong-300+129+17+1,fault-cu-fused,fault-g-fused,fault-values-fused,fused-v128-mha-rand40,fused-v128-gva4-T200,fused-v128-gva2-34x40,fused-gvapair-strong-300+129+17+1+300,fused-gvapair-fewstrong-300+129+17+1+300,fault-cu-fused-gvapair,fault-cu-fused-gvapair-persistent,fused-v128-mha-T33,fault-cu-fused-v128,fault-g-fused-v128,fault-values-fused-v128,fused-v128-many-mha-rand70,fused-v128-strong-rand70,fused-v128-fewstrong-rand70,fused-v128-unordered-300,auto-device-fused-40x75,fault-cu-fused-v128-many,fused-persistent-1x200,fused-persistent-1x300,fused-persistent-long-60,fused-v128-one-item-4097x1,fused-gvapair-one-item-257x128,fault-cu-fused-v128-one-item,fused-pair-300+129+17+1-pool,fused-v128-gva2-34x40-pool,fused-persistent-mha-rand70-pool,fused-gvapair-300+129+17+1+300-pool,fused-v128-one-item-4097x1-pool,fused-gvapair-one-item-257x128-pool,fused-pair-300+129+17+1-pool-bad-index,fused-v128-gva2-34x40-pool-bad-index,fused-persistent-mha-rand70-pool-bad-index,fused-gvapair-300+129+17+1+300-pool-bad-index,fused-v128-one-item-4097x1-pool-bad-index,fused-gvapair-one-item-257x128-pool-bad-index,fused-pair-300+129+17+1-pool-bf16,fused-v128-gva2-34x40-pool-bf16,fused-persistent-mha-rand70-pool-bf16,fused-gvapair-300+129+17+1+300-pool-bf16,fused-v128-one-item-4097x1-pool-bf16,fused-gvapair-one-item-257x128-pool-bf16 OUT=$R/san-race SANITIZE_TIMEOUT=140 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize-race.log 2>&1; echo "rc=$?" >> $R/sanitize-race.log; mark racecheck
cat $R/times.log $R/gpu.txt; grep -E '^\| ' $R/full/results.md | cut -c1-200
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run\|receipt" $R/sanitize.log $R/sanitize-race.log $R/san*/*.log 2>/dev/null | sort | uniq -c
