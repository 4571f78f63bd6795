#!/bin/bash
# Session 2026-12-04c, call 1: first-item latency. Phase-1 timelines (base vs x) with each CTA's first
# item from the kernel's start; bit-identity of n16 and x against base; pytest on x; lengths and rows,
# 2 rounds, base / n16 (solver: one warp per 16x16 block) / x (n16 + the overlapped pass's first copies
# before its prologue).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for v in base x; do timeout 30 $T/tl/timeline-$v S1 S2 T2K B8x2K > $R/timeline-$v.log 2>&1; done
echo "timelines done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
for v in base n16 x; do (PYTHONPATH=$T/$v/python timeout 60 python3 $T/dump_outputs.py $R/dump-$v.pt > $R/dump-$v.log 2>&1); done
python3 $T/compare_outputs.py $R/dump-base.pt $R/dump-n16.pt > $R/compare-n16.log 2>&1
python3 $T/compare_outputs.py $R/dump-base.pt $R/dump-x.pt > $R/compare-x.log 2>&1
rm -f $R/dump-*.pt
echo "dumps done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
(PYTHONPATH=$T/x/python timeout 100 python3 -m pytest tests/python -q -rs -x > $R/pytest-x.log 2>&1; echo rc=$? >> $R/pytest-x.log)
echo "pytest done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
ROWS=S1,S2,S4,S5,L32K-MHA,B8x2K
for k in 1 2; do
  for n in base n16 x; do
    d=$T/$n
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/sequence_lengths.py $n$k >> $R/lengths.jsonl 2>> $R/lengths.err)
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/bench.py --no-fla --no-accuracy --rows $ROWS --out $R/$n$k > $R/$n$k.log 2>&1)
    echo "$n$k done $(( $(date +%s) - t0 ))s" >> $R/times.log
  done
  pack
done
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
