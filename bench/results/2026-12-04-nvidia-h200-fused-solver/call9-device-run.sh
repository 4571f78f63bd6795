#!/bin/bash
# call 9: f18 (Kb, Qg stored by the producer during its formation into a triple-buffered
# 128-byte-swizzled operand that the solver's A/P and the consumer read: no copy, no Kb/Qg staging)
# against g3 (landed): pytest -k fused, probes interleaved twice.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
cp $T/g3/python/gdn2/_eager* python/gdn2/
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
cp $T/f18/libgdn2_torch.so python/gdn2/
timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-f18.log 2>&1; echo "rc=$?" >> $R/pytest-f18.log
tail -2 $R/pytest-f18.log; mark pytest-f18
for k in 1 2; do for V in g3 f18; do
  if [ $V = g3 ]; then cp $T/g3/python/gdn2/libgdn2_torch.so python/gdn2/; else cp $T/$V/libgdn2_torch.so python/gdn2/; fi
  OUT=$R/probe-$V-$k timeout 100 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$k.log 2>&1; echo rc=$? >> $R/probe-$V-$k.log
  mark probe-$V-$k
done; done
paste $R/probe-g3-1.log $R/probe-f18-1.log $R/probe-g3-2.log $R/probe-f18-2.log | awk -F'\t' '{for(i=1;i<=NF;i++){split($i,a," "); printf "%s ", (i==1?a[1]" "a[2]:a[2]" "a[3])} print ""}'
cat $R/times.log
