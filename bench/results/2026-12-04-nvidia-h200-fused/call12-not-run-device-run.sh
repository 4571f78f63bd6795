#!/bin/bash
# Session 2026-12-04 (sixth), call 12: the candidate (g1: the fused path, kAuto over three
# algorithms): example, pytest, the four sanitizers over the example and the whole matrix, stress.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/g1/bin/* build/ && cp $T/g1/python/gdn2/* python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
mark example
timeout 170 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
tail -3 $R/pytest.log
OUT=$R/san SANITIZE_TIMEOUT=120 timeout 300 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
tail -12 $R/sanitize.log
PYTHONPATH=python timeout $(( 585 - ($(date +%s) - t0) )) python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log
mark stress
tail -3 $R/stress.log; cat $R/times.log
