#!/bin/bash
# Session 2026-12-04 (second), call 9: the rows at scale, ours (6dd6144's build, main's kernels) and
# FLA (flash-linear-attention and fla-core 0.6.0, einops 0.8.2: PyPI wheels installed with
# `pip install --no-deps --target tools_tmp/site`) in the same process, the benchmark's protocol, in
# three groups of rows, each its own process and table, so that a time limit costs one group at most.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 GDN2_COMMIT=6dd6144
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
run() {  # name, seconds, rows
  (cd $T/poll && PYTHONPATH=$T/poll/python:$T/site timeout $2 python3 bench/bench.py --rows $3 --out $R/$1 > $R/$1.log 2>&1; echo "rc=$?" >> $R/$1.log)
  echo "$1 done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
}
run long 190 L32K-MHA,L32K-GVA2
run batch 60 B8x2K,B4x4K
run mixed 60 N64-MIXED-MHA,N64-MIXED-GVA2
