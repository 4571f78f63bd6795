#!/bin/bash
# For the next session (written 2026-12-06 ~08:40): one device call for the branch built and not
# run in the session of 2026-12-06 from 07:33:
#   uniform-blocks (two commits on main): the fused one-item forms' consumers and
#   producer take the block count by a broadcast, so that the consumers' block counter and wgmma
#   descriptors are uniform (no R2UR before each wgmma) and the producer's loop is 17 instructions
#   shorter. Package tools_tmp/ub (the branch's head); base tools_tmp/m2 (main 207b7fe, the kernels of main now). Rebuild
#   both if main moved. The persistent kernels' SASS is the same in both; the pair form (S1,
#   B4x4K-MHA, one sequence fused forced) and the one-item v128 / GVA pair past 4,096 / 256
#   sequences change.
# Carry: tar czf tools_tmp/ab.tgz -C tools_tmp m2 ub s
# Command: tar xzf tools_tmp/ab.tgz -C tools_tmp && bash tools_tmp/s/next-call.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in m2 ub; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B4x4K-MHA,B8x2K-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes 1x64-hv16,1x128-hv16,1x256-hv16,2x512-hv16,4x16-hv16,1x64-hv32 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use ub
timeout 170 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-ub.log 2>&1; echo "rc=$?" >> $R/pytest-ub.log; mark pytest-ub
tail -n 3 $R/pytest-ub.log; pack
MX=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-auto-mha-T64,fused-v128-one-item-4097x1,fused-gvapair-one-item-257x128,fault-cu-fused
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c
cat $R/times.log; pack
