#!/bin/bash
# Call 1: [Kb; Qg] written by the producer straight into a swizzled three-deep kq ring (kq =
# main + this change, uncommitted on 46599b3) against main's kernels (f = 95ec0c5, whose fused
# kernels are main's). Outputs bit for bit (bench/outputs_bitwise.py), a same-call A/B of every
# row (f, kq alternating, two rounds, hint), timelines of S1 and B8x2K on the fused path, then
# kq's fused and bad-input tests.
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
mkdir -p build
use() { rm -f build/gdn2_*; cp $T/$1/bin/* build/ 2>/dev/null; cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in f kq; do
  use $V; PYTHONPATH=python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-f.pt $R/dump-kq.pt > $R/compare-kq.log 2>&1; echo "rc=$?" >> $R/compare-kq.log
rm -f $R/dump-*.pt
mark bitwise
for V in f kq; do
  use $V; timeout 40 ./build/gdn2_phase1_timeline S1-fused B8x2K-fused > $R/timeline-$V.log 2>&1; echo "rc=$?" >> $R/timeline-$V.log
done
mark timelines
for round in 1 2; do
  for V in f kq; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
use kq
L=$(cap 330 150); [ $L -gt 30 ] && { timeout $L python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider -k "fused or one_launch or canonical or harmless or inconsistent or auto" > $R/pytest-kq.log 2>&1; echo "rc=$?" >> $R/pytest-kq.log; mark pytest-kq; }
tail -3 $R/compare-kq.log; grep -h 'start-up\|CTA duration\|per block' $R/timeline-*.log | head -20; tail -1 $R/pytest-kq.log; cat $R/times.log
