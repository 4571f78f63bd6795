#!/bin/bash
# Session 2026-12-04 (fifth), call 7: the candidate (r4 = r3a's recurrent kernel, kAuto by the
# fitted estimates, max_seqlen): example, pytest, the four sanitizers over the example and the whole
# matrix, the crossover (both algorithms, auto's choice), every benchmark row (no FLA), stress.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/r4/bin/* build/ && cp $T/r4/python/gdn2/* python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
mark example
timeout 150 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
timeout 60 python3 bench/algorithm_crossover.py --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
GDN2_COMMIT=r4 timeout 150 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log
mark bench
OUT=$R/san SANITIZE_TIMEOUT=90 timeout 260 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
PYTHONPATH=python timeout $(( 585 - ($(date +%s) - t0) )) python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log
mark stress
