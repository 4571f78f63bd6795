#!/bin/bash
# Session 2026-12-06 from 11:45, call 1: sland (main 484d76e's kernels) against zs (zero-start:
# an item without an initial state skips block 0's products of the state in the fused consumers):
# A/B three rounds; bitwise; the whole pytest on zs; racecheck+synccheck over the fused cases on zs;
# synccheck over the whole matrix on zs with the time left.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-580} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
SH=1x16-hv16,1x64-hv16,1x64-hv16-h0,1x256-hv16,128x1-hv16,512x1-hv16,64x16-hv16,2048x1-hv16,128x1-hv32-h0
for round in 1 2 3; do for b in sland zs; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64-MIXED-MHA,B4x4K-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes $SH --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sland zs; do use $b; timeout 40 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sland.pt $R/out-zs.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use zs
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider -rs > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack
MX=fused-auto-mha-T64,fused-pair-300+129+17+1,fused-pair-300+129+17+1-pool,fused-pair-300+129+17+1-pool-bad-index,fused-mha-rand20,fused-v128-mha-rand40,fused-v128-many-mha-rand70,fused-persistent-1x200,fused-v128-one-item-4097x1,fused-gvapair-one-item-257x128,fused-gvapair-strong-300+129+17+1+300
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 120 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; pack
L=$(( $(left) - 5 )); [ $L -gt 60 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="synccheck" OUT=$R/san-sync SANITIZE_TIMEOUT=$L timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-sync.log 2>&1; echo "rc=$?" >> $R/sanitize-sync.log; pkill -f compute-sanitizer; mark synccheck-all; }
tail -n 2 $R/pytest-all.log; tail -n 2 $R/bitwise.log; grep -h "SUMMARY\|case(s) run" $R/san*/*.log | sort | uniq -c; cat $R/times.log; pack
