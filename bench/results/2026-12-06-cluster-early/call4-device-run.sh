#!/bin/bash
# Session 2026-12-06 from 11:06, call 4: the landed build (main 99355db): the fused path's start-up
# by the timeline build (S1-fused, B4x4K-fused); FLA 0.6.0 in the same process as ours on S1, S2,
# S5; on an H200 the whole table first.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-420} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
use sland
if grep -q H200 $R/gpu.txt; then
  timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
fi
timeout 60 ./tools_tmp/tl/gdn2_phase1_timeline S1-fused B4x4K-fused > $R/timeline.log 2>&1; echo "rc=$?" >> $R/timeline.log; mark timeline; pack
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in S1 S5 S2; do
  L=$(( $(left) - 3 )); [ $L -lt 40 ] && break
  PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-accuracy --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
grep -h "^| [SLNB]" $R/fla-*.log; cat $R/times.log; pack
