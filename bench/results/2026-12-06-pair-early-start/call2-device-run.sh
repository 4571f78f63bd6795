#!/bin/bash
# Session 2026-12-06 from 10:14, call 2: sf (main c19611a's kernels) against sq (every fused form
# launched behind the previous grid, the persistent forms' barriers set up where main does; the
# recurrent kernel main's) and sr (only the pair form and the one-item forms of one consumer so
# launched, barriers before the wait; the 128-channel forms and the GVA pair main's SASS, the
# recurrent kernel main's): three rounds alternating; bit for bit; sr's GPU tests and sanitizers.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sf sq sr; do use $b
  timeout 45 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64-MIXED-MHA,B8x2K-MHA,B4x4K-MHA,B8x2K-GVA2 --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused,recurrent --shapes 1x64-hv16,1x256-hv16,8x1-hv16,128x1-hv16,64x8-hv16,2x512-hv16,8x256-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sf sq sr; do use $b; timeout 50 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
for b in sq sr; do python3 bench/outputs_bitwise.py compare $R/out-sf.pt $R/out-$b.pt > $R/bitwise-$b-cmp.log 2>&1; echo "rc=$?" >> $R/bitwise-$b-cmp.log; done; rm -f $R/out-*.pt; mark bitwise; pack
use sr
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-sr.log 2>&1; echo "rc=$?" >> $R/pytest-sr.log; mark pytest-sr; pack
MX=fused-auto-mha-T64,fused-mha-rand20,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fault-cu-fused,fault-g-fused
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 120 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c
tail -n 2 $R/pytest-sr.log; tail -n 1 $R/bitwise-*-cmp.log; cat $R/times.log; pack
