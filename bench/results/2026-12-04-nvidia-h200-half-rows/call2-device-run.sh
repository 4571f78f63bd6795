#!/bin/bash
# Session 2026-12-04 (fourth), call 2: h2 (h1 with the decoders' shared-memory loads batched ahead of
# their stores) against n1 on the rows of the register-state passes; outputs against n1.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for v in n1 h2; do
  PYTHONPATH=$T/$v/python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1
done
python3 bench/outputs_bitwise.py compare $R/dump-n1.pt $R/dump-h2.pt > $R/compare-h2.log 2>&1; echo "rc=$?" >> $R/compare-h2.log
rm -f $R/dump-*.pt
mark dumps
for round in 1 2; do
  for v in n1 h2; do
    (cd $T/$v && GDN2_COMMIT=$v PYTHONPATH=$T/$v/python timeout 80 python3 bench/bench.py --no-fla --no-accuracy \
       --rows S3,S4,N64,B8x2K,B4x4K --out $R/bench-$v-$round > $R/bench-$v-$round.log 2>&1; echo "rc=$?" >> $R/bench-$v-$round.log)
    mark "bench $v $round"
  done
done
