#!/bin/bash
# Session 2026-12-06 from 07:33, call 4: land (main 584c6ba) vs clm (branch claims-one-round: the
# persistent fused forms claim nothing within one round, and the call has no memset node there).
# Same-call A/B (3 rounds), then clm's fused/auto GPU tests and sanitizers on persistent cases.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-330} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in land clm; do use $b
  [ $(left) -lt 150 ] && break 2
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows B8x2K-MHA,B4x4K-GVA2,N64,S3 --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes 8x1-hv16,7x8-hv16,8x64-hv16,128x1-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use clm
timeout 100 python3 -m pytest tests/python -q -p no:cacheprovider -k "fused or persistent or auto or choice or pool" > $R/pytest-clm.log 2>&1; echo "rc=$?" >> $R/pytest-clm.log; mark pytest-clm
tail -n 3 $R/pytest-clm.log; pack
MX=fused-v128-mha-rand40,fused-v128-gva4-T200,fault-cu-fused-gvapair,fused-v128-mha-T33,fused-persistent-1x200,fault-cu-fused-v128,fused-gvapair-one-item-257x128
L=$(( $(left) - 5 )); [ $L -gt 20 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; }
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c
cat $R/times.log; pack
