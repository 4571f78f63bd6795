#!/bin/bash
# Session 2026-12-06 from 10:14, call 1: sf (main c19611a's kernels) against sp (branch pdl-first:
# the fused and recurrent kernels launched behind the previous grid, letting the next grid launch at
# their start, their barriers set up before the wait): rows and shapes of those paths, three rounds
# alternating; bit for bit; the chained-call graph tests.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sf sp; do use $b
  timeout 45 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64-MIXED-MHA,B8x2K-MHA,B4x4K-MHA,B8x2K-GVA2 --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused,recurrent --shapes 1x64-hv16,8x1-hv16,128x1-hv16,64x8-hv16,2x512-hv16,8x256-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sf sp; do use $b; timeout 25 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64-MIXED-MHA --out $R/nohint-$b > $R/nohint-$b.log 2>&1; done; mark nohint; pack
for b in sf sp; do use $b; timeout 50 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sf.pt $R/out-sp.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use sp
timeout 60 python3 -m pytest tests/python/test_forward_gpu.py -q -p no:cacheprovider -k "chained or choose or choice or concurren or in_place or state_carry" > $R/pytest-sp.log 2>&1; echo "rc=$?" >> $R/pytest-sp.log; mark pytest
tail -n 2 $R/pytest-sp.log; tail -n 2 $R/bitwise.log; cat $R/times.log; pack
