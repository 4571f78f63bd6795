#!/bin/bash
# Session 2026-12-04 (third), call 5: the memset-node probe (S1, S2), then the rows at scale, ours
# (main's build n1, 8ea1c31's bench.py) and FLA 0.6.0 in the same process, three groups of rows.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
(cd $T/n1 && PYTHONPATH=$T/n1/python timeout 60 python3 $T/probe_memset.py $T/n1 > $R/probe_memset.log 2>&1; echo "rc=$?" >> $R/probe_memset.log)
mark probe
run() {  # name, seconds, rows
  (cd $T/n1 && GDN2_COMMIT=8ea1c31 PYTHONPATH=$T/n1/python:$T/site timeout $2 python3 bench/bench.py --rows $3 --out $R/$1 > $R/$1.log 2>&1; echo "rc=$?" >> $R/$1.log)
  mark $1
}
run long 200 L32K-MHA,L32K-GVA2
run batch 70 B8x2K,B4x4K
run mixed 70 N64-MIXED-MHA,N64-MIXED-GVA2
