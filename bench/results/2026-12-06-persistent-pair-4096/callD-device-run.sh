#!/bin/bash
# Session 2026-12-06 05:41, call D: the final build (merge-ab with kAuto's refit: kFusedV128Persistent,
# kFusedV128PairPersistent, kRecurrentRoundFloor): the whole benchmark table with the hint, the batch
# rows without it (the device's choice), kAuto's fused-vs-recurrent picks on 1-token batches, all GPU
# tests, then FLA's canonical rows beside ours as the time allows.
# Carry tools_tmp/ab.tgz; command: tar xzf tools_tmp/ab.tgz -C tools_tmp && bash tools_tmp/s/callD.sh
set -u
R=$OUT/d; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-440} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/d.tgz -C $OUT d; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
use final
timeout 60 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint
tail -n 17 $R/full-hint.log; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint
timeout 40 python3 bench/algorithm_crossover.py --shapes 128x1-hv16,512x1-hv16,2048x1-hv16,128x1-hv32,128x1-hv64,32x1-hv16 --out $R/cross-auto > $R/cross-auto.log 2>&1; mark cross-auto
tail -n 8 $R/cross-auto.log; pack
L=$(( $(left) - 40 )); timeout $L python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 3 $R/pytest-all.log; pack
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1; echo "rc=$?" >> $R/pip.log
L=$(left); [ $L -gt 30 ] && { PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --quick --iters 50 --warmup 10 --max-seqlen --out $R/canonical-fla > $R/canonical-fla.log 2>&1; echo "rc=$?" >> $R/canonical-fla.log; mark fla; tail -n 8 $R/canonical-fla.log; }
cat $R/times.log; pack
