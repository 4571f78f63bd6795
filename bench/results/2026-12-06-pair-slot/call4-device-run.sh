#!/bin/bash
# Session 2026-12-06 from 09:19, call 4: sf (wait-hint 29aabd9: the pair form's slot with fewer
# wavefronts and its roles' waits suspending; every other kernel's SASS main's) against sw (main
# b8fea1b): pair-form rows and shapes, three rounds alternating; then sf's whole table, every GPU
# test, bit-for-bit against sw, three sanitizers on the fused cases.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sw sf; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B4x4K-MHA,B8x2K-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 60 python3 bench/algorithm_crossover.py --algorithms fused --shapes 1x64-hv16,1x128-hv16,1x256-hv16,2x512-hv16,8x256-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  timeout 60 python3 bench/algorithm_crossover.py --set long --algorithms fused --shapes 4x1024-hv16,2x4096-hv16,16x1024-hv16 --out $R/crossl-$b-$round > $R/crossl-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use sf
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
for b in sw sf; do use $b; timeout 60 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sw.pt $R/out-sf.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use sf
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-sf.log 2>&1; echo "rc=$?" >> $R/pytest-sf.log; mark pytest-sf; pack
MX=fused-auto-mha-T64,fused-mha-rand20,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gva3-65+63+1-validate,fault-cu-fused,fault-g-fused
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c
tail -n 2 $R/pytest-sf.log; tail -n 2 $R/bitwise.log; cat $R/times.log; pack
