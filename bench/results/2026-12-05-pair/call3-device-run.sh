#!/bin/bash
# Call 3: p3 (p2 with the copy split: the producer sends kq, Kend^T, D and the other CTA's w*v once
# its threads have stored them, the solver only T and P once the block is complete) and p3x (a
# probe: p3 with each copy replaced by its byte count completed on the other CTA's barrier, no data
# moved: wrong results, the period without the copies' cost) against sf3 (main's kernels): p3's
# outputs bit for bit, its forward tests, then an A/B of the one-wave rows forced onto the fused
# path (two rounds) and of every row through auto with the hint (one round).
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
for V in sf3 p3; do
  use $V; PYTHONPATH=python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-sf3.pt $R/dump-p3.pt > $R/compare-p3.log 2>&1; echo "rc=$?" >> $R/compare-p3.log
rm -f $R/dump-*.pt; mark bitwise
grep -q "^rc=0" $R/dump-p3.log || { echo "p3's dump failed: stop"; cat $R/times.log; exit 1; }
use p3; timeout 90 python3 -m pytest tests/python/test_forward_gpu.py -q -x -p no:cacheprovider > $R/pytest-forward.log 2>&1; echo "rc=$?" >> $R/pytest-forward.log; mark pytest
for round in 1 2; do
  for V in sf3 p3 p3x; do
    use $V
    L=$(cap 400 40); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,S5,B4x4K-MHA --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
for V in sf3 p3; do
  use $V
  L=$(cap 500 50); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-1 > $R/ab-$V-1.log 2>&1; echo "rc=$?" >> $R/ab-$V-1.log
done
mark ab-1
tail -n 1 $R/compare-p3.log; tail -n 2 $R/pytest-forward.log; cat $R/gpu.txt $R/times.log
