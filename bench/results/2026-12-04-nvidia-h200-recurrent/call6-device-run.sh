#!/bin/bash
# Session 2026-12-04 (fifth), call 6: r3a = r2's recurrent kernel with 2 CTAs per SM, the next
# item's initial state prefetched, a block's last n % 4 tokens one at a time; kAuto's two-regime
# rule and max_seqlen. r2's recurrent times on the same shapes; r3a's crossover, example, sanitizers (recurrent cases), pytest.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
cp $T/r2/python/gdn2/* python/gdn2/
timeout 60 python3 bench/algorithm_crossover.py --algorithms recurrent --out $R/x-r2 > $R/x-r2.log 2>&1; echo "rc=$?" >> $R/x-r2.log
mark "x r2"
mkdir -p build && cp $T/r3a/bin/* build/ && cp $T/r3a/python/gdn2/* python/gdn2/
timeout 120 python3 bench/algorithm_crossover.py --out $R/x-r3a > $R/x-r3a.log 2>&1; echo "rc=$?" >> $R/x-r3a.log
mark "x r3a"
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
OUT=$R/san SANITIZE_TIMEOUT=60 SANITIZE_PROGRAMS=gdn2_sanitize_matrix \
  SANITIZE_MATRIX_ARGS="--only=rec-auto-mha-T32,rec-auto-gva2-1x32,rec-gva3-65+63+1-validate,rec-mha-rand20,rec-gva4-T200,fault-cu-rec,fault-cu-extreme-rec,fault-g-rec,fault-values-rec" \
  timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
timeout $(( 585 - ($(date +%s) - t0) )) python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
