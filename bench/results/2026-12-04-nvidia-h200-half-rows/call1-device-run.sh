#!/bin/bash
# Session 2026-12-04 (fourth), call 1: h1 (the rows of the register-state passes in fp16 with a
# power of two per sub-tile, decoded in the pass's shared memory) against n1 (main's kernels).
# pytest on h1; outputs bit for bit against n1; two alternating rounds of every row (graph);
# phase 1's timeline on B8x2K for both.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/h1/bin/* build/ && cp $T/h1/python/gdn2/*.so python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
timeout 170 python3 -m pytest tests/python -q -rs -x > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
for v in n1 h1; do
  PYTHONPATH=$T/$v/python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1
done
python3 bench/outputs_bitwise.py compare $R/dump-n1.pt $R/dump-h1.pt > $R/compare-h1.log 2>&1; echo "rc=$?" >> $R/compare-h1.log
rm -f $R/dump-*.pt
mark dumps
for round in 1 2; do
  for v in n1 h1; do
    (cd $T/$v && GDN2_COMMIT=$v PYTHONPATH=$T/$v/python timeout 80 python3 bench/bench.py --no-fla --no-accuracy \
       --out $R/bench-$v-$round > $R/bench-$v-$round.log 2>&1; echo "rc=$?" >> $R/bench-$v-$round.log)
    mark "bench $v $round"
  done
done
for v in n1 h1; do
  timeout 60 $T/$v/bin/gdn2_phase1_timeline B8x2K > $R/timeline-$v.log 2>&1
done
mark timeline
