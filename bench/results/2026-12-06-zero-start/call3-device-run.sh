#!/bin/bash
# Session 2026-12-06 from 11:45, call 3: the landed build zl (zero-start 6d53305, SASS as zs2): the
# whole table with the hint, the rows without it, the example, memcheck and synccheck over the whole
# matrix, racecheck over the fused cases, the stress run, the short and long crossover sets.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-580} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
use zl
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S1,S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint; pack
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck synccheck" OUT=$R/san SANITIZE_TIMEOUT=100 timeout 110 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; pack
MX=fused-auto-mha-T64,fused-pair-300+129+17+1,fused-pair-300+129+17+1-pool,fused-pair-300+129+17+1-pool-bad-index,fused-pair-strong-300+129+17+1,fused-mha-rand20,fused-gva2-8x40,fused-v128-mha-rand40,fused-v128-mha-T33,fused-v128-many-mha-rand70,fused-persistent-1x200,fused-persistent-mha-rand70,fused-v128-one-item-4097x1,fused-gvapair-one-item-257x128,fused-gvapair-strong-300+129+17+1+300
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san-race SANITIZE_TIMEOUT=90 timeout 100 bash scripts/gpu_check.sh sanitize > $R/sanitize-race.log 2>&1; echo "rc=$?" >> $R/sanitize-race.log; pkill -f compute-sanitizer; mark racecheck-fused; pack
PYTHONPATH=python timeout 150 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; pack
timeout 40 python3 bench/algorithm_crossover.py --set long --out $R/crossover-long > $R/crossover-long.log 2>&1; echo "rc=$?" >> $R/crossover-long.log; mark crossover-long; pack
L=$(( $(left) - 5 )); [ $L -gt 40 ] && { timeout $L python3 bench/algorithm_crossover.py --set short --out $R/crossover-short > $R/crossover-short.log 2>&1; echo "rc=$?" >> $R/crossover-short.log; mark crossover-short; pack; }
tail -n 3 $R/example.log; grep -h "SUMMARY\|case(s) run" $R/san*/*.log 2>/dev/null | sort | uniq -c; tail -n 3 $R/stress.log; cat $R/times.log; pack
