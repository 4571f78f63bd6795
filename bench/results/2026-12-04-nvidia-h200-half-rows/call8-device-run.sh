#!/bin/bash
# Session 2026-12-04 (fourth), call 8: h5 (fp16 rows for the 128-channel pass of MHA problems only;
# the consumers' wgmma no longer serialised) and h6 (fp16 rows for every register-state pass)
# against n1: pytest on h5, outputs against n1, two alternating rounds of every row.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
for v in n1 h5 h6; do
  PYTHONPATH=$T/$v/python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1
done
for v in h5 h6; do
  python3 bench/outputs_bitwise.py compare $R/dump-n1.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; echo "rc=$?" >> $R/compare-$v.log
done
rm -f $R/dump-*.pt
mark dumps
for round in 1 2; do
  for v in n1 h5 h6; do
    (cd $T/$v && GDN2_COMMIT=$v PYTHONPATH=$T/$v/python timeout 80 python3 bench/bench.py --no-fla --no-accuracy \
       --out $R/bench-$v-$round > $R/bench-$v-$round.log 2>&1; echo "rc=$?" >> $R/bench-$v-$round.log)
    mark "bench $v $round"
  done
done
mkdir -p build && cp $T/h5/bin/* build/ && cp $T/h5/python/gdn2/*.so python/gdn2/
timeout 170 python3 -m pytest tests/python -q -rs -x > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
