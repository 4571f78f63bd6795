#!/bin/bash
# Prepared in the session of 2026-12-06 from 14:31 and run in the one from 15:52 (calls 1 and 2):
# main's build (package `pa`: python/gdn2 with its .so files, bench/*.py, bin/ with gdn2_example,
# gdn2_sanitize_matrix, gdn2_pdl_caller_order, gdn2_tf32_rounding) on whatever GPU comes, the H200
# first (an H100 came). PART=1: the whole table with the hint and
# accuracy, without the hint, every GPU test, then FLA row by row in the same process as ours.
# PART=2 (the same warm machine): the example, memcheck and synccheck over the sanitizer matrix, the
# stress test, then FLA on the rows part 1 left out (FLA_ROWS).
# Carry (here c11): tar czf tools_tmp/cN.tgz -C tools_tmp pa s wheels ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && PART=1 DEADLINE=430 bash tools_tmp/s/next.sh (call 1)
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && PART=2 DEADLINE=420 FLA_ROWS="N64-MIXED-GVA2 S1 S3 S4 S5" bash tools_tmp/s/next.sh (call 2)
set -u
R=$OUT/n$PART; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-540} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n$PART.tgz -C $OUT n$PART; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp tools_tmp/pa/python/gdn2/*.so python/gdn2/; mkdir -p build; cp tools_tmp/pa/bin/* build/
if [ "$PART" = 1 ]; then
  timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint; pack
  timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack
else
  timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log; mark example
  SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck synccheck" OUT=$R/san SANITIZE_TIMEOUT=100 timeout 110 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; pack
  PYTHONPATH=python timeout 150 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; pack
fi
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in ${FLA_ROWS:-S2 L32K-MHA B4x4K-MHA B8x2K-MHA N64-MIXED-MHA L32K-GVA2 B4x4K-GVA2 B8x2K-GVA2 N64-MIXED-GVA2 S1 S3 S4 S5}; do
  L=$(( $(left) - 3 )); [ $L -lt 40 ] && break
  PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
cat $R/times.log; tail -n 2 $R/pytest-all.log $R/example.log $R/stress.log 2>/dev/null; grep -h "SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c; pack
