#!/bin/bash
# Session 2026-12-06 from 07:33, call 5: land (main 584c6ba) vs stp (branch claims-step: within one
# round the persistent forms' claims add 0 to a module word past any item count, so the call has
# no memset node; the kernel's only change: the claim's increment from a parameter).
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in land stp; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows B8x2K-MHA,S3,N64-MIXED-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes 8x1-hv16,7x8-hv16,8x64-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use stp
timeout 70 python3 -m pytest tests/python -q -p no:cacheprovider -k "persistent or one_item or auto_picks or on_the_device" > $R/pytest-stp.log 2>&1; echo "rc=$?" >> $R/pytest-stp.log; mark pytest-stp
tail -n 3 $R/pytest-stp.log; cat $R/times.log; pack
