#!/bin/bash
# Session 2026-12-06 from 08:34, call 3: main 15a164f (package uw: uniform-blocks and uniform-wg
# landed) on the lent GPU: the whole table with the hint (accuracy included), the batch rows
# without it, every GPU test, memcheck over the whole sanitizer matrix, then FLA on S5 and rows at
# scale as time allows.
# Carry: tar czf tools_tmp/c3.tgz -C tools_tmp uw s3 wheels ; command: tar xzf tools_tmp/c3.tgz -C tools_tmp && bash tools_tmp/s3/call3.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-585} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
use uw
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint; pack
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 3 $R/pytest-all.log; pack
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck" OUT=$R/san SANITIZE_TIMEOUT=170 timeout 180 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c; pack
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in S5 B8x2K-MHA N64-MIXED-MHA; do
  L=$(( $(left) - 3 )); [ $L -lt 40 ] && break
  PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
cat $R/times.log; pack
