#!/bin/bash
# Session 2026-12-06 from 11:45, call 2: sland (main 484d76e's kernels), zs2 (zero start in every
# fused form, the consumers' leader predicate hoisted) and zs3 (zs2 without it in the pair form):
# A/B three rounds on the fused rows; bitwise for both against sland; the whole pytest on zs2.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-580} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
SH=1x64-hv16,2x512-hv16,512x1-hv16,128x1-hv32
for round in 1 2 3; do for b in sland zs2 zs3; do use $b
  timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64-MIXED-MHA,B8x2K-MHA,B4x4K-MHA,N64-MIXED-GVA2,B4x4K-GVA2 --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes $SH --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sland zs2 zs3; do use $b; timeout 40 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
for b in zs2 zs3; do python3 bench/outputs_bitwise.py compare $R/out-sland.pt $R/out-$b.pt > $R/bitwise-cmp-$b.log 2>&1; echo "rc=$?" >> $R/bitwise-cmp-$b.log; done; rm -f $R/out-*.pt; mark bitwise; pack
use zs2
L=$(( $(left) - 5 )); [ $L -gt 130 ] && { timeout $L python3 -m pytest tests/python -q -p no:cacheprovider -rs > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; }
tail -n 2 $R/pytest-all.log; tail -qn 2 $R/bitwise-cmp-*.log; cat $R/times.log; pack
