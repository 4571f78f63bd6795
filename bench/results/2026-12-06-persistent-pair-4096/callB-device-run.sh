#!/bin/bash
# Session 2026-12-06 05:41, call B: the merged build (merge-ab: the GVA pair on persistent
# clusters + the persistent form up to 4,096 sequences + ItemTable as one array), against main:
#   1. same-call A/B (2 rounds): bench rows and fused-forced short batches;
#   2. kAuto's crossovers (short and long sets) on the merged build, for the refit;
#   3. all GPU tests (the merged build's tests); 4. sanitizers over the persistent cases;
#   5. a shortened stress run.
# Carry tools_tmp/ab.tgz; command: tar xzf tools_tmp/ab.tgz -C tools_tmp && bash tools_tmp/s/callB.sh
set -u
R=$OUT/b; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( 585 - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/b.tgz -C $OUT b; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
for round in 1 2; do for b in main merged; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64,B8x2K-GVA2,B4x4K-GVA2,L32K-GVA2 --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused,recurrent --shapes 128x1-hv16,512x1-hv16,2048x1-hv16,128x1-hv64 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use merged
for S in short long; do
  timeout 120 python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S
done; pack
T=tests/python  # the working tree is merge-ab
L=$(( $(left) - 130 )); timeout $L python3 -m pytest $T -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 3 $R/pytest-all.log; pack
MX=fused-persistent-1x200,fused-persistent-long-60,fused-v128-many-mha-rand70,fault-cu-fused-v128-many,fused-persistent-mha-rand70-pool-bad-index,fused-gvapair-strong-300+129+17+1+300,fault-cu-fused-gvapair-persistent,fused-gvapair-300+129+17+1+300-pool-bad-index
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout 90 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize.log $R/san/*.log 2>/dev/null | sort | uniq -c; pack
L=$(( $(left) - 5 )); [ $L -gt 20 ] && { OUT=$R/stress STRESS_ARGS="--launches 20000 --graph-replays 2000" timeout $L bash scripts/gpu_check.sh stress > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; tail -n 4 $R/stress.log; }
cat $R/times.log; pack
