#!/bin/bash
# Session 2026-12-04 (fifth), call 3: what bounds the recurrent path's token. Builds: r2 (fp32 key
# rows in smem), pb (b, k, q bf16 in smem, d b k in registers, contiguous channels per thread),
# probes on pb: p1 (no shuffles for p: wrong), p2 (no S^T q: wrong). Recurrent only, two rounds.
# Then pb's checks: pytest (everything), sanitizers on the recurrent cases.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
SH=1x1-hv16,1x64-hv16,1x256-hv16,1x64-hv64,128x1-hv16,64x4-hv16,16x16-hv16
for round in 1 2; do
  for v in r2 pb p1 p2; do
    PYTHONPATH=$T/$v/python timeout 60 python3 bench/algorithm_crossover.py --shapes $SH --algorithms recurrent \
      --out $R/x-$v-$round > $R/x-$v-$round.log 2>&1; echo "rc=$?" >> $R/x-$v-$round.log
    mark "x $v $round"
  done
done
mkdir -p build && cp $T/pb/bin/* build/ && cp $T/pb/python/gdn2/*.so python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
OUT=$R/san SANITIZE_TIMEOUT=60 SANITIZE_PROGRAMS=gdn2_sanitize_matrix \
  SANITIZE_MATRIX_ARGS="--only=rec-auto-mha-T64,rec-auto-gva2-1x32,rec-gva3-65+63+1-validate,rec-mha-rand20,rec-gva4-T200,fault-cu-rec,fault-cu-extreme-rec,fault-g-rec,fault-values-rec" \
  timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
timeout $(( 585 - ($(date +%s) - t0) )) python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
