#!/bin/bash
# Call 5 (NOT RUN: the session's device time ran out): the branch's final build (the persistent form and kAuto's estimate of it,
# kFusedV128Persistent): kAuto's GPU tests (its picks, the device's choice, the hint), the
# persistent form's tests, the whole benchmark table with the hint, and the batch rows without it
# (the device's choice).
# Carry tools_tmp/ab.tgz; command `tar xzf tools_tmp/ab.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c5; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
pack() { tar czf $OUT/c5.tgz -C $OUT c5; }
use final
timeout 120 python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py -q -p no:cacheprovider \
  -k "auto or on_the_device or max_seqlen or persistent or graph_replays or workspace or canonical" > $R/pytest.log 2>&1
echo "rc=$?" >> $R/pytest.log; mark pytest; tail -n 3 $R/pytest.log; pack
timeout 60 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint
tail -n 17 $R/full-hint.log; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint
tail -n 9 $R/nohint.log; cat $R/gpu.txt $R/times.log; pack
