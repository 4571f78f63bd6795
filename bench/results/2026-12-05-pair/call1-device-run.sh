#!/bin/bash
# Call 1: p1 (branch `pair`: the fused path's 64-channel form as a cluster of the head's two CTAs,
# each forming every other block's key side and copying it into the other's shared memory) against
# sf3 (main's kernels, 3fb7cee): the example as a smoke test, outputs bit for bit, the whole pytest
# suite on p1, then an A/B of every row (hint) and of the one-wave rows forced onto the fused path.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
timeout 30 $T/p1/bin/gdn2_example > $R/example-p1.log 2>&1; echo "rc=$?" >> $R/example-p1.log; mark example
for V in sf3 p1; do
  use $V; PYTHONPATH=python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-sf3.pt $R/dump-p1.pt > $R/compare-p1.log 2>&1; echo "rc=$?" >> $R/compare-p1.log
rm -f $R/dump-*.pt; mark bitwise
use p1; mkdir -p build; cp $T/p1/bin/* build/
L=$(cap 260 150); timeout $L python3 -m pytest tests/python -q -rs -x -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
for round in 1 2; do
  for V in sf3 p1; do
    use $V
    L=$(cap 520 60); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
    L=$(cap 560 40); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,S4,S5,B4x4K-MHA --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark ab-$round
done
tail -n 2 $R/example-p1.log; tail -n 1 $R/compare-p1.log; tail -n 3 $R/pytest.log; cat $R/gpu.txt $R/times.log
