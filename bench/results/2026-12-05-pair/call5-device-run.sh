#!/bin/bash
# Call 5: p4 (p3 with the consumer's release of the other CTA's slot as a plain remote arrival,
# release at CTA scope as CUTLASS's cluster pipelines do, instead of release at cluster scope: call
# 4's timeline had the consumer's last segment at 1,100 cycles per block against 540) against sf3
# (main's kernels): outputs bit for bit, the forward tests, an A/B of the one-wave rows forced onto
# the fused path (two rounds) and of every row through auto with the hint (one round); the role
# timeline of p4's probe build (ps4).
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
for V in sf3 p4; do
  use $V; PYTHONPATH=python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-sf3.pt $R/dump-p4.pt > $R/compare-p4.log 2>&1; echo "rc=$?" >> $R/compare-p4.log
rm -f $R/dump-*.pt; mark bitwise
grep -q "^rc=0" $R/dump-p4.log || { echo "p4's dump failed: stop"; cat $R/times.log; exit 1; }
use ps4; PYTHONPATH=python timeout 40 python3 bench/results/2026-12-05-pair/pair_timeline.py > $R/roles-ps4.log 2>&1; echo "rc=$?" >> $R/roles-ps4.log; mark roles
for round in 1 2; do
  for V in sf3 p4; do
    use $V
    L=$(cap 300 40); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,S4,S5,B4x4K-MHA --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
for V in sf3 p4; do
  use $V
  L=$(cap 360 50); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-1 > $R/ab-$V-1.log 2>&1; echo "rc=$?" >> $R/ab-$V-1.log
done
mark ab-1
use p4; L=$(cap 440 80); timeout $L python3 -m pytest tests/python/test_forward_gpu.py -q -x -p no:cacheprovider > $R/pytest-forward.log 2>&1; echo "rc=$?" >> $R/pytest-forward.log; mark pytest
tail -n 1 $R/compare-p4.log; cat $R/roles-ps4.log; tail -n 2 $R/pytest-forward.log; cat $R/gpu.txt $R/times.log
