#!/bin/bash
# Session 2026-12-04c, call 3: rot (the CTAs that end after their first item take items 0, 1, ...: the first chunks), wr (rot + the solver warm-up).
# timelines base / wr; bit-identity of rot and wr; pytest on wr; lengths and rows, 2 rounds.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for v in base wr; do timeout 30 $T/tl/timeline-$v S1 S2 T2K B8x2K > $R/timeline-$v.log 2>&1; done
echo "timelines done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
for v in base rot wr; do (PYTHONPATH=$T/$v/python timeout 60 python3 $T/dump_outputs.py $R/dump-$v.pt > $R/dump-$v.log 2>&1); done
for v in rot wr; do python3 $T/compare_outputs.py $R/dump-base.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; done
rm -f $R/dump-*.pt
echo "dumps done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
(PYTHONPATH=$T/wr/python timeout 100 python3 -m pytest tests/python -q -rs -x > $R/pytest-wr.log 2>&1; echo rc=$? >> $R/pytest-wr.log)
echo "pytest done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
ROWS=S1,S2,S3,S4,S5,L32K-MHA,B8x2K
for k in 1 2; do
  for n in base rot wr; do
    d=$T/$n
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/sequence_lengths.py $n$k >> $R/lengths.jsonl 2>> $R/lengths.err)
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/bench.py --no-fla --no-accuracy --rows $ROWS --out $R/$n$k > $R/$n$k.log 2>&1)
    echo "$n$k done $(( $(date +%s) - t0 ))s" >> $R/times.log
  done
  pack
done
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
