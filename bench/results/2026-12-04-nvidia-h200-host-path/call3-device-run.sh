#!/bin/bash
# Session 2026-12-04 (third), call 3: n1 (main's build, 011a2e0's kernels) against ho (the outputs
# allocated after phase 1's launch: gdn2::forward_allocating_outputs), same kernels. Three rounds of
# one benchmark process per version (S1, S2, host overhead line, 8ea1c31's bench.py), the host
# breakdown and the C++ host timing per version; then ho's checks: example, pytest, sanitizers, stress.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for round in 1 2 3; do
  for v in n1 ho; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 60 python3 bench/bench.py --no-fla --no-accuracy --rows S1,S2 \
       --out $R/bench-$v-$round > $R/bench-$v-$round.log 2>&1; echo "rc=$?" >> $R/bench-$v-$round.log)
  done
done
mark ab
for v in n1 ho; do
  (cd $T/$v && timeout 60 python3 bench/host_breakdown.py --json $R/host_breakdown-$v.json > $R/host_breakdown-$v.log 2>&1)
  $T/$v/bin/gdn2_host_timing > $R/host_timing-$v.log 2>&1
done
mark host
mkdir -p build && cp $T/ho/bin/* build/ && cp $T/ho/python/gdn2/*.so python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
timeout 150 python3 -m pytest tests/python -q -rs > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
OUT=$R/san SANITIZE_TIMEOUT=90 timeout 240 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
PYTHONPATH=python timeout 110 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log
mark stress
