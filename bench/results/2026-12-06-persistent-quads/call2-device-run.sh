#!/bin/bash
# Session 2026-12-06 from 06:41, call 2: final (main 735ad6d's kernels) vs spairs2 (state pairs,
# loads batched) vs squad (state quads); squad's GPU tests and sanitizer; squad's item timeline.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
timeout 60 tools_tmp/tlq/gdn2_phase1_timeline 64x256-fused 128x1-fused 64x256-gva2-fused > $R/timeline-squad.log 2>&1; echo "rc=$?" >> $R/timeline-squad.log; mark timeline; pack
use squad
timeout 150 python3 -m pytest tools_tmp/squad/tests/python/test_forward_gpu.py tools_tmp/squad/tests/python/test_state_pool_gpu.py -q -x -p no:cacheprovider -k "fused or persistent or pool or bf16 or initial" > $R/pytest-squad.log 2>&1; echo "rc=$?" >> $R/pytest-squad.log; mark pytest; tail -2 $R/pytest-squad.log; pack
MX=fused-persistent-1x200,fused-persistent-mha-rand70-pool-bf16,fused-gvapair-300+129+17+1+300-pool-bf16,fused-pair-300+129+17+1-pool-bf16,fused-persistent-1x300
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout 90 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; pkill -f compute-sanitizer; mark sanitize
for round in 1 2; do for b in final spairs2 squad; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64,B8x2K,B4x4K --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes 128x1-hv16,512x1-hv16,128x1-hv64,128x1-hv16-h0,64x4-hv16-h0,128x1-hv32-h0,1x64-hv16-h0,32x64-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
cat $R/times.log; pack
