#!/bin/bash
# Session 2026-12-04c, call 4: rot (the CTAs that end after their first item take the first items)
# and new (rot + the 32-channel pass's prologue round trips side by side: cu_seqlens check loads and
# chunk 0's ready word early, the plain pass's first copies before phase 1's verdict).
# timelines base / new; bit-identity of rot and new; sanitizers and pytest on new; lengths and rows, 2 rounds.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for v in base new; do timeout 30 $T/tl/timeline-$v S1 S2 T2K > $R/timeline-$v.log 2>&1; done
echo "timelines done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
for v in base rot new; do (PYTHONPATH=$T/$v/python timeout 60 python3 $T/dump_outputs.py $R/dump-$v.pt > $R/dump-$v.log 2>&1); done
for v in rot new; do python3 $T/compare_outputs.py $R/dump-base.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; done
rm -f $R/dump-*.pt
echo "dumps done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
(OUT=$R/san SANITIZE_TIMEOUT=60 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1)
echo "sanitize done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
(PYTHONPATH=$T/new/python timeout 100 python3 -m pytest tests/python -q -rs -x > $R/pytest-new.log 2>&1; echo rc=$? >> $R/pytest-new.log)
echo "pytest done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
ROWS=S1,S2,S4,S5,L32K-MHA,L32K-GVA2
for k in 1 2; do
  for n in base rot new; do
    d=$T/$n
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/sequence_lengths.py $n$k >> $R/lengths.jsonl 2>> $R/lengths.err)
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/bench.py --no-fla --no-accuracy --rows $ROWS --out $R/$n$k > $R/$n$k.log 2>&1)
    echo "$n$k done $(( $(date +%s) - t0 ))s" >> $R/times.log
  done
  pack
done
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
