#!/bin/bash
# Session 2026-12-06 from 12:51, call 1: the landed build (zl, main 9df62ab's kernels) on the lent GPU:
# the programmatic-launch probe (bench/pdl_order_probe.cu),
# the whole table with the hint, the fused and chunked timelines of the landed build (tlz), then FLA
# row by row in the same process as ours, as time allows; every GPU test (pytest) before FLA.
# Carry: tar czf tools_tmp/c1.tgz -C tools_tmp zl tlz s9 wheels ; command: tar xzf tools_tmp/c1.tgz -C tools_tmp && bash tools_tmp/s9/call1.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-520} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
use zl
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
timeout 30 ./build/gdn2_pdl_order_probe 20 > $R/pdl-probe.log 2>&1; echo "rc=$?" >> $R/pdl-probe.log; mark pdl-probe
timeout 60 ./tools_tmp/tlz/gdn2_phase1_timeline S1-fused S2 > $R/timeline-tlz.log 2>&1; echo "rc=$?" >> $R/timeline-tlz.log; mark timeline; pack
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; tail -n 3 $R/pytest-all.log; pack
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in S1 S2 S3 S4 S5 N64-MIXED-MHA B8x2K-MHA B4x4K-MHA N64-MIXED-GVA2 B8x2K-GVA2 B4x4K-GVA2 L32K-MHA L32K-GVA2; do
  L=$(( $(left) - 3 )); [ $L -lt 30 ] && break
  PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
cat $R/times.log; pack
