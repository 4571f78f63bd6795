#!/bin/bash
# Session 2026-12-04b, call 1: upper bound of taking U = T R off the chain: an experiment build
# (GDN2_EXP_SKIP_TR: U := R, wrong results, timing only) against HEAD's build, same call, 2 rounds.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
ROWS=S2,S4,S5,B8x2K,N64-MIXED-GVA2
for k in 1 2; do
  for n in base exp; do
    d=$T/$n
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/sequence_lengths.py $n$k >> $R/lengths.jsonl 2>> $R/lengths.err)
    (cd $d && PYTHONPATH=$d/python timeout 60 python3 bench/bench.py --no-fla --no-accuracy --rows $ROWS --out $R/$n$k > $R/$n$k.log 2>&1)
    echo "$n$k done $(( $(date +%s) - t0 ))s" >> $R/times.log
  done
  pack
done
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
