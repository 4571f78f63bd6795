#!/bin/bash
# Session 2026-12-04 (third), call 6: L32K-GVA2, ours (main's build n1) and FLA 0.6.0 in the same
# process, without the fp64 reference (call 5's group with it ran out of time on this row).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
(cd $T/n1 && GDN2_COMMIT=8ea1c31 PYTHONPATH=$T/n1/python:$T/site timeout 300 python3 bench/bench.py --rows L32K-GVA2 --no-accuracy --out $R/long-gva2 > $R/long-gva2.log 2>&1; echo "rc=$?" >> $R/long-gva2.log)
tar czf $OUT/r.tgz -C $OUT r
