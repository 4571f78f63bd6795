#!/bin/bash
# Session 2026-12-04 (fifth), call 1: the recurrent path (r1). The C++ example; the crossover
# sweep (both algorithms forced, graph time); pytest (everything); the four sanitizers over the
# recurrent cases of the matrix; bench S1,S2 for r1 and n1 (main's build), two alternating rounds.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/r1/bin/* build/ && cp $T/r1/python/gdn2/*.so python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
mark example
PYTHONPATH=python timeout 150 python3 bench/algorithm_crossover.py --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
OUT=$R/san SANITIZE_TIMEOUT=60 SANITIZE_PROGRAMS=gdn2_sanitize_matrix \
  SANITIZE_MATRIX_ARGS="--only=rec-auto-mha-T64,rec-auto-gva2-1x32,rec-gva3-65+63+1-validate,rec-mha-rand20,rec-gva4-T200,fault-cu-rec,fault-cu-extreme-rec,fault-g-rec,fault-values-rec" \
  timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
./build/gdn2_sanitize_matrix > $R/matrix.log 2>&1; echo "rc=$?" >> $R/matrix.log
mark matrix
for round in 1 2; do
  for v in n1 r1; do
    (cd $T/$v && GDN2_COMMIT=$v PYTHONPATH=$T/$v/python timeout 60 python3 bench/bench.py --no-fla --no-accuracy \
       --rows S1,S2 --out $R/bench-$v-$round > $R/bench-$v-$round.log 2>&1; echo "rc=$?" >> $R/bench-$v-$round.log)
    mark "bench $v $round"
  done
done
timeout $(( 585 - ($(date +%s) - t0) )) python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
