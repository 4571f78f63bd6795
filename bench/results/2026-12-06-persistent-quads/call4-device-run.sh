#!/bin/bash
# Session 2026-12-06 from 06:41, call 4: final (main 735ad6d) vs land (persistent-quads f6966e9:
# quads in both persistent forms' stores, in the 128-channel one's reads; the GVA pair reads single
# elements) vs candC (the GVA pair persistent stores by pairs); then land: the whole table with the
# hint, kAuto's crossovers (short, long), all GPU tests, sanitizers, a shortened stress run.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-530} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in final land candC; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows N64,B8x2K --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes 128x1-hv16,128x1-hv64,128x1-hv32-h0 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use land
timeout 60 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
for S in short long; do
  timeout 60 python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S
done; pack
MX=fused-persistent-1x200,fused-persistent-1x300,fused-persistent-long-60,fused-v128-many-mha-rand70,fault-cu-fused-v128-many,fused-persistent-mha-rand70-pool-bad-index,fused-persistent-mha-rand70-pool-bf16,fused-gvapair-strong-300+129+17+1+300,fault-cu-fused-gvapair-persistent,fused-gvapair-300+129+17+1+300-pool-bad-index,fused-gvapair-300+129+17+1+300-pool-bf16
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout 90 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize.log $R/san/*.log 2>/dev/null | sort | uniq -c; pack
L=$(( $(left) - 40 )); timeout $L python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 3 $R/pytest-all.log; pack
L=$(( $(left) - 5 )); [ $L -gt 20 ] && { OUT=$R/stress STRESS_ARGS="--launches 20000 --graph-replays 2000" timeout $L bash scripts/gpu_check.sh stress > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; tail -n 4 $R/stress.log; }
cat $R/times.log; pack
