#!/bin/bash
# Session 2026-12-06 from 09:19, call 6: sf (main 29aabd9's kernels) against so (one-warp-waits:
# in the pair form one solver warp tests `formed`, the other three wait at the solver's named
# barrier): pair-form rows and shapes, three rounds alternating; bit for bit; racecheck and
# synccheck on pair cases; the fused GPU tests, in the device time left.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sf so; do use $b
  timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B4x4K-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 30 python3 bench/algorithm_crossover.py --algorithms fused --shapes 1x256-hv16,2x512-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sf so; do use $b; timeout 50 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sf.pt $R/out-so.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use so
MX=fused-auto-mha-T64,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout 60 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; pack
timeout 60 python3 -m pytest tests/python/test_forward_gpu.py -q -p no:cacheprovider -k "fused" -x > $R/pytest-so.log 2>&1; echo "rc=$?" >> $R/pytest-so.log; mark pytest
tail -n 2 $R/pytest-so.log; tail -n 2 $R/bitwise.log; grep -h "SUMMARY\|case(s) run" $R/san/*.log | sort | uniq -c; cat $R/times.log; pack
