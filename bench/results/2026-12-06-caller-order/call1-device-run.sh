#!/bin/bash
# Session 2026-12-06 from 14:31, call 1. Part 1: the landed ordering fix (pa, main f57525a) against
# 9df62ab's kernels (za): the device-choice GPU tests and the regression test on pa, the regression
# program on both builds, S1, S2, S3 without the hint, two rounds alternating. Part 2: pa's whole
# table with the hint (accuracy included) and without it, every GPU test, then FLA row by row.
# Carry: tar czf tools_tmp/c10.tgz -C tools_tmp za pa s10 wheels (za: 9df62ab's python/gdn2, bench/*.py and
# bin/gdn2_pdl_caller_order built from main with 9df62ab's device_common.cuh; pa: main f57525a's) ;
# command: tar xzf tools_tmp/c10.tgz -C tools_tmp && DEADLINE=430 bash tools_tmp/s10/call1.sh
set -u
R=$OUT/a; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-565} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/a.tgz -C $OUT a; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp tools_tmp/pa/python/gdn2/*.so python/gdn2/; mkdir -p build; cp tools_tmp/pa/bin/* build/
F=tests/python/test_forward_gpu.py
timeout 80 python3 -m pytest -q -rs -p no:cacheprovider $F::test_auto_chooses_on_the_device $F::test_graph_replays_choose_on_the_device $F::test_calls_after_a_choice_on_the_device $F::test_max_seqlen_hint_never_changes_results $F::test_auto_picks_by_size $F::test_fused_pair_form $F::test_canonical_rows tests/python/test_pdl_caller_order_gpu.py > $R/pytest-choice.log 2>&1; echo "rc=$?" >> $R/pytest-choice.log; mark pytest-choice
for v in pa za; do timeout 60 tools_tmp/$v/bin/gdn2_pdl_caller_order 20 > $R/caller-order-$v.log 2>&1; echo "rc=$?" >> $R/caller-order-$v.log; done; mark caller-order; pack
for k in 1 2; do for v in za pa; do
  (cd tools_tmp/$v && GDN2_COMMIT=$v PYTHONPATH=$PWD/python timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --rows S1,S2,S3 --out $R/$v$k > $R/$v$k.log 2>&1); mark $v$k
done; done; pack
timeout 70 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint; pack
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in ${FLA_ROWS:-S2 L32K-MHA B4x4K-MHA B8x2K-MHA N64-MIXED-MHA L32K-GVA2 B4x4K-GVA2 B8x2K-GVA2 N64-MIXED-GVA2 S1 S3 S4 S5}; do
  L=$(( $(left) - 3 )); [ $L -lt 40 ] && break
  PYTHONPATH=/tmp/site timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
cat $R/times.log; tail -n 2 $R/pytest-choice.log $R/pytest-all.log; tail -n 3 $R/caller-order-*.log; pack
