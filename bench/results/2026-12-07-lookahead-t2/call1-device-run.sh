#!/bin/bash
# Session of 2026-12-07 from 14:22, call 1. (a) The previous session's call 3, never run:
# pass-lookahead-probe.patch (bench/results/2026-12-07-pass-lookahead/) with -DLA_T2 (T
# double-buffered, T_{c+2} issued once T_c is read) as la-t2, and with -DLA_T2 -DLA_NOP as
# la-noptwo, against main (3f4d0a3's build: 3089a63's kernels, the same as this session's start,
# 67ab223). Timing only; three rounds. (b) On an H200 only: main's whole table with the
# accuracy check, FLA 0.6.0 row by row in the same process, then the GPU tests with the time left.
# Carry: tools_tmp/c6.tgz, tools_tmp/wheels, python/gdn2/*.so (main's build); bench/results moved out.
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
tar xzf tools_tmp/c6.tgz -C tools_tmp || exit 2
BASE=main VARIANTS="la-t2 la-noptwo" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=3 LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
ROWS=S2,S5,L32K BENCH_ARGS=--max-seqlen GATE_ROWS=S2,S5,L32K NUMERICS_CHANGE="la-t2 la-noptwo" bash scripts/device_ab.sh
cat $OUT/r/medians.txt; cat $OUT/r/times.log
R=$OUT/h; mkdir -p $R
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/h.tgz -C $OUT h; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cat $R/gpu.txt
grep -q H200 $R/gpu.txt || { echo "not an H200: (b) not run"; exit 0; }
C=67ab223
GDN2_COMMIT=$C PYTHONPATH=python timeout 120 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in S1 S2 S3 S4 S5 B8x2K-MHA N64-MIXED-MHA B4x4K-MHA B8x2K-GVA2 B4x4K-GVA2 N64-MIXED-GVA2 L32K-MHA L32K-GVA2; do
  L=$(( $(left) - 100 )); [ $L -lt 30 ] && break
  PYTHONPATH=python:/tmp/site GDN2_COMMIT=$C timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
L=$(( $(left) - 10 ))
if [ $L -gt 60 ]; then
  PYTHONPATH=python timeout $L python3 -m pytest -q -p no:cacheprovider -rs tests/python/*_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
fi
pack
cat $R/times.log; tail -3 $R/pytest.log 2>/dev/null
grep -E '^\| ' $R/full-hint/results.md | cut -c1-220
