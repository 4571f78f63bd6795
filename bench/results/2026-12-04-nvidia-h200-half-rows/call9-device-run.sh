#!/bin/bash
# Session 2026-12-04 (fourth), call 9: ks (the register-state passes copy Kb and Qg separately, each on
# its own barrier, so that R^T's product starts once Kb has landed) against n1: outputs bit for bit,
# two alternating rounds of every row.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
for v in n1 ks; do
  PYTHONPATH=$T/$v/python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1
done
python3 bench/outputs_bitwise.py compare $R/dump-n1.pt $R/dump-ks.pt > $R/compare-ks.log 2>&1; echo "rc=$?" >> $R/compare-ks.log
rm -f $R/dump-*.pt
mark dumps
for round in 1 2; do
  for v in n1 ks; do
    (cd $T/$v && GDN2_COMMIT=$v PYTHONPATH=$T/$v/python timeout 80 python3 bench/bench.py --no-fla --no-accuracy \
       --out $R/bench-$v-$round > $R/bench-$v-$round.log 2>&1; echo "rc=$?" >> $R/bench-$v-$round.log)
    mark "bench $v $round"
  done
done
