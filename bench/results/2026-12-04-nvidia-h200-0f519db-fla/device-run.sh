#!/bin/bash
# 0f519db (kernels of e8b6874): every row, ours and FLA (flash-linear-attention and fla-core 0.6.0,
# einops 0.8.2: PyPI wheels installed with `pip install --no-deps --target tools_tmp/site`) in the
# same process, the benchmark's protocol (median of 100 after 20 warm-up calls), in four groups of
# rows, each its own process and table, so that a time limit costs one group at most.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 GDN2_COMMIT=0f519db
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
run() {  # name, seconds, rows
  (PYTHONPATH=python:$PWD/tools_tmp/site timeout $2 python3 bench/bench.py --rows $3 --out $R/$1 > $R/$1.log 2>&1; echo "rc=$?" >> $R/$1.log)
  echo "$1 done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
}
run canonical 170 S1,S2,S3,S4,S5
run long 130 L32K-MHA,L32K-GVA2
run mixed 130 N64-MIXED-MHA,N64-MIXED-GVA2
run batch 130 B8x2K,B4x4K
