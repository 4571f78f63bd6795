#!/bin/bash
# Session 2026-12-04 (fifth), call 4 (call 3's timing again: bench.py puts the repository's
# python/ first on sys.path, so each build's libraries are copied there before its run).
# r2 (fp32 key rows in smem), pb (b, k, q bf16 in smem), probes on pb: p1 (no shuffles for p),
# p2 (no S^T q). Recurrent only, two rounds.
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
    cp $T/$v/python/gdn2/*.so python/gdn2/
    timeout 60 python3 bench/algorithm_crossover.py --shapes $SH --algorithms recurrent \
      --out $R/x-$v-$round > $R/x-$v-$round.log 2>&1; echo "rc=$?" >> $R/x-$v-$round.log
    mark "x $v $round"
  done
done
