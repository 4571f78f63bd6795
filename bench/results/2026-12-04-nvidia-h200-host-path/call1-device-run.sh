#!/bin/bash
# Session 2026-12-04 (third), call 1: the checks that 011a2e0 (main's kernels, build n1) had not run:
# the C++ example, the four sanitizers over the example and the variant matrix, the stress test; then
# the benchmark of every row (no FLA) with 8ea1c31's host-overhead line, and bench/host_breakdown.py.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/n1/bin/* build/ && cp $T/n1/python/gdn2/*.so python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
mark example
OUT=$R/san SANITIZE_TIMEOUT=60 timeout 220 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
PYTHONPATH=python timeout 110 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log
mark stress
GDN2_COMMIT=8ea1c31 PYTHONPATH=python timeout 150 python3 bench/bench.py --no-fla --out $R/final > $R/final.log 2>&1; echo "rc=$?" >> $R/final.log
mark bench
PYTHONPATH=python timeout 60 python3 bench/host_breakdown.py --json $R/host_breakdown.json > $R/host_breakdown.log 2>&1; echo "rc=$?" >> $R/host_breakdown.log
mark host_breakdown
