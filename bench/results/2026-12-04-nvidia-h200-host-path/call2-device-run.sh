#!/bin/bash
# Session 2026-12-04 (third), call 2: the C++ API's host path (gdn2_host_timing, three runs), then the
# canonical rows, ours (main's kernels, build n1) and FLA 0.6.0 (PyPI wheels in tools_tmp/site) in the
# same process, the benchmark's protocol.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/n1/bin/* build/ && cp $T/n1/python/gdn2/*.so python/gdn2/
for i in 1 2 3; do ./build/gdn2_host_timing > $R/host_timing-$i.log 2>&1; done
mark host_timing
GDN2_COMMIT=8ea1c31 PYTHONPATH=python:$T/site timeout 470 python3 bench/bench.py --rows S1,S2,S3,S4,S5 --out $R/canonical-fla > $R/canonical-fla.log 2>&1; echo "rc=$?" >> $R/canonical-fla.log
mark canonical-fla
