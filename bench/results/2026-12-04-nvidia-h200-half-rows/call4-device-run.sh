#!/bin/bash
# Session 2026-12-04 (fourth), call 4: probes (wrong results, timing only) of h3: p1 without the
# decode of Kb, Qg; p2 without the decode of Kend^T; against n1 and h3, two alternating rounds.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
for round in 1 2; do
  for v in n1 h3 p1 p2; do
    (cd $T/$v && GDN2_COMMIT=$v PYTHONPATH=$T/$v/python timeout 80 python3 bench/bench.py --no-fla --no-accuracy \
       --rows S4,B4x4K,N64-MIXED-GVA2,B8x2K --out $R/bench-$v-$round > $R/bench-$v-$round.log 2>&1; echo "rc=$?" >> $R/bench-$v-$round.log)
    mark "bench $v $round"
  done
done
