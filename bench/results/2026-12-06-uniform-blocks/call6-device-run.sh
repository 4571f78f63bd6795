#!/bin/bash
# Session 2026-12-06 from 08:34, call 6: main 3652b57 (package sw: the same kernels, SASS byte for
# byte) on whatever GPU came: the whole table with the hint (accuracy included) and the batch rows
# without it, in the device time left.
# Carry: tar czf tools_tmp/c6.tgz -C tools_tmp sw s6 ; command: tar xzf tools_tmp/c6.tgz -C tools_tmp && bash tools_tmp/s6/call6.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
use sw
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint
cat $R/times.log; pack
