#!/bin/bash
# Session 2026-12-04 (fifth), call 8: r4 (the commit's kernels) again: the crossover with auto's
# choice with and without the max_seqlen hint; the canonical rows with FLA 0.6.0 (PyPI wheels in
# tools_tmp/site) in the same process.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/r4/bin/* build/ && cp $T/r4/python/gdn2/*.so python/gdn2/
timeout 60 python3 bench/algorithm_crossover.py --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
GDN2_COMMIT=r4 PYTHONPATH=python:$T/site timeout $(( 585 - ($(date +%s) - t0) )) python3 bench/bench.py --rows S1,S2,S3,S4,S5 --out $R/canonical-fla > $R/canonical-fla.log 2>&1; echo "rc=$?" >> $R/canonical-fla.log
mark canonical-fla
