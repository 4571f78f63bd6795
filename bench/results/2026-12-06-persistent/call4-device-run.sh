#!/bin/bash
# Call 4: the persistent form's build (new = the branch's kernels): kAuto's crossovers, the short
# set (all three algorithms) and the long set (chunked and fused), for a refit of the fused
# 128-channel estimate (bench/fit_auto.py). Each writes its rows as it goes (crossover.json).
# Carry tools_tmp/ab.tgz; command `tar xzf tools_tmp/ab.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c4; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
pack() { tar czf $OUT/c4.tgz -C $OUT c4; }
use new
timeout 170 python3 bench/algorithm_crossover.py --out $R/short > $R/short.log 2>&1; echo "rc=$?" >> $R/short.log; mark short; pack
timeout 170 python3 bench/algorithm_crossover.py --set long --out $R/long > $R/long.log 2>&1; echo "rc=$?" >> $R/long.log; mark long
tail -n 3 $R/short.log $R/long.log; cat $R/gpu.txt $R/times.log; pack
