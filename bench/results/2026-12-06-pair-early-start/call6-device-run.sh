#!/bin/bash
# Session 2026-12-06 from 10:14, call 6: main e6ed2ea (package sfin: the pair form behind the previous
# grid, kAuto's pair-form estimate refitted, kAuto's choice on the device past 16 rounds): every GPU
# test, the whole table with the hint, the batch rows without it, the many-sequence set with auto
# timed.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
use sfin
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint; pack
timeout 60 python3 bench/algorithm_crossover.py --set many --time-auto --replays 20 --out $R/many > $R/many.log 2>&1; echo "rc=$?" >> $R/many.log; mark many
tail -n 2 $R/pytest-all.log; grep -A16 "^| row" $R/full-hint.log; cat $R/times.log; pack
