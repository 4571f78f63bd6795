#!/bin/bash
# Session 2026-12-06 from 10:14, call 7: sfin (main's kernels) against sc (branch cluster-early: the
# pair form's CTAs arrive on the cluster barrier right after setting up their barriers, before the
# wait for the previous grid, and only wait on it after their first copy requests): pair-form rows
# and shapes, three rounds alternating; bit for bit; racecheck and synccheck on pair cases; the
# fused GPU tests.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sfin sc; do use $b
  timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B4x4K-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 30 python3 bench/algorithm_crossover.py --algorithms fused --shapes 1x64-hv16,1x256-hv16,2x512-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sfin sc; do use $b; timeout 40 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sfin.pt $R/out-sc.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use sc
MX=fused-auto-mha-T64,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fault-cu-fused
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=30 timeout 50 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; pack
timeout 45 python3 -m pytest tests/python/test_forward_gpu.py -q -p no:cacheprovider -k "pair or chained or choice or choose" -x > $R/pytest-sc.log 2>&1; echo "rc=$?" >> $R/pytest-sc.log; mark pytest
tail -n 2 $R/pytest-sc.log; tail -n 2 $R/bitwise.log; grep -h "SUMMARY\|case(s) run" $R/san/*.log | sort | uniq -c; cat $R/times.log; pack
