#!/bin/bash
# Session of 2026-12-07 from 09:13, call 8: main's build (3089a63's kernels: the gs package) on an
# H200 if one comes (needs_h200): the whole table with the hint and the accuracy check, as call 6
# on the H100. On any other GPU it runs nothing.
# Carry: tar czf tools_tmp/c5.tgz -C tools_tmp ab1/gs; bench/results moved out.
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cat $R/gpu.txt
grep -q H200 $R/gpu.txt || { echo "not an H200: nothing run"; exit 0; }
tar xzf tools_tmp/c5.tgz -C tools_tmp || exit 2
cp tools_tmp/ab1/gs/python/gdn2/*.so python/gdn2/
GDN2_COMMIT=d2ad053 PYTHONPATH=python timeout 150 python3 bench/bench.py --no-fla --max-seqlen --out $R/full > $R/full.log 2>&1; echo "rc=$?" >> $R/full.log
tar czf $OUT/r.tgz -C $OUT r
grep -E '^\| ' $R/full/results.md | cut -c1-200
