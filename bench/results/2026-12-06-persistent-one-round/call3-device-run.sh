#!/bin/bash
# Session 2026-12-06 from 07:33, call 3: m1 (main fed9b2a) vs land (branch persistent-one-round:
# the persistent fused forms within one round too, the one-item kernels' dead longest-first order
# removed, tests moved). Same-call A/B (3 rounds), then land: the whole table with the hint, the
# batch rows without it, kAuto's crossovers (short, long), sanitizers, all GPU tests, stress.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in m1 land; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B4x4K,B8x2K-MHA,S3,N64-MIXED-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes 8x1-hv16,7x8-hv16,8x64-hv16,1x64-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use land
timeout 60 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint
for S in short long; do
  timeout 60 python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S
done; pack
timeout 220 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 3 $R/pytest-all.log; pack
MX=fused-v128-one-item-4097x1,fused-gvapair-one-item-257x128,fused-v128-mha-rand40,fused-v128-gva4-T200,fault-cu-fused-gvapair,fault-cu-fused-v128,fused-v128-mha-T33,fused-pair-300+129+17+1,auto-device-fused-40x75,auto-device-chunked-40
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout $(( $(left) - 10 )) bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize.log $R/san/*.log 2>/dev/null | sort | uniq -c; pack
L=$(( $(left) - 5 )); [ $L -gt 20 ] && { OUT=$R/stress STRESS_ARGS="--launches 20000 --graph-replays 2000" timeout $L bash scripts/gpu_check.sh stress > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; tail -n 4 $R/stress.log; }
cat $R/times.log; pack
