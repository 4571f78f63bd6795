#!/bin/bash
# Session 2026-12-06 from 11:06, call 1: sfin (main 89e0ffc's kernels) against scf (branch
# cluster-early 037df69: the pair form's CTAs arrive on the cluster barrier before the wait for
# the previous grid; __syncthreads before the cluster wait orders thread 0's sm.state): A/B three
# rounds alternating; bit for bit; racecheck and synccheck over the fused and auto cases; then on
# scf the whole pytest, the whole table, memcheck over the whole matrix and the example, racecheck
# over the whole matrix.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sfin scf; do use $b
  timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B4x4K-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 30 python3 bench/algorithm_crossover.py --algorithms fused --shapes 1x64-hv16,1x256-hv16,2x512-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sfin scf; do use $b; timeout 40 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sfin.pt $R/out-scf.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use scf
MX=fused-auto-mha-T64,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-pair-300+129+17+1-pool,fused-pair-300+129+17+1-pool-bad-index,fused-pair-300+129+17+1-pool-bf16,fault-cu-fused,fault-g-fused,fault-values-fused,fused-mha-rand20,fused-gva2-8x40,fused-gva4-T200,auto-device-fused-40x75,fused-gva3-65+63+1-validate
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; pack
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider -rs > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack
timeout 60 env PYTHONPATH=python python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; mark full-hint; pack
SANITIZE_TOOLS="memcheck" OUT=$R/san-mem SANITIZE_TIMEOUT=60 timeout 100 bash scripts/gpu_check.sh example sanitize > $R/sanitize-mem.log 2>&1; echo "rc=$?" >> $R/sanitize-mem.log; pkill -f compute-sanitizer; mark memcheck; pack
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/san-race SANITIZE_TIMEOUT=100 timeout 110 bash scripts/gpu_check.sh sanitize > $R/sanitize-race.log 2>&1; echo "rc=$?" >> $R/sanitize-race.log; pkill -f compute-sanitizer; mark racecheck-all
tail -n 2 $R/pytest-all.log; tail -n 2 $R/bitwise.log; grep -h "SUMMARY\|case(s) run" $R/san*/*.log | sort | uniq -c; cat $R/times.log; pack
