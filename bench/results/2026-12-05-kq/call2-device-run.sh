#!/bin/bash
# Call 2: why kq lost 2% (call 1). Role timelines per block (apply_probe_roles.py: pm = main's
# fused.cuh with the marks, pk = kq's), then an A/B of the fused rows: f (main's kernels), kq, and
# kl = kq with the 128-channel solver releasing the staging as late as main did (after the slot's
# release), two rounds with the hint.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in pm pk; do
  use $V; PYTHONPATH=python timeout 60 python3 bench/results/2026-12-05-kq/role_timeline.py > $R/roles-$V.log 2>&1; echo "rc=$?" >> $R/roles-$V.log
done
mark roles
for round in 1 2; do
  for V in f kq kl; do
    use $V
    timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64-MIXED-MHA,B8x2K-MHA,B8x2K-GVA2 --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
grep -h "per block\|==" $R/roles-*.log; cat $R/times.log
