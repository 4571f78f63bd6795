#!/bin/bash
# Session 2026-12-06 from 10:14, call 4: main 0dd3dff (package sy: a40ccd4's kernels, kAuto's pair-form
# estimate refitted, the device-choice test cases moved): kAuto's GPU tests, the short crossover set
# (the picks, measured), then FLA 0.6.0 in the same process as ours on the rows at scale that the
# README has no FLA time for, as time allows (no accuracy: ours is in call 3's table).
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-585} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
use sy
timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -p no:cacheprovider -k "auto or choice or choose or chained or hint" > $R/pytest-auto.log 2>&1; echo "rc=$?" >> $R/pytest-auto.log; mark pytest-auto; pack
timeout 60 python3 bench/algorithm_crossover.py --set short --out $R/crossover-short > $R/crossover-short.log 2>&1; echo "rc=$?" >> $R/crossover-short.log; mark crossover-short; pack
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in B4x4K-MHA N64-MIXED-GVA2 B8x2K-GVA2 B4x4K-GVA2 L32K-MHA L32K-GVA2; do
  L=$(( $(left) - 3 )); [ $L -lt 40 ] && break
  PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-accuracy --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
tail -n 2 $R/pytest-auto.log; grep -h "^| [SLNB]" $R/fla-*.log; cat $R/times.log; pack
