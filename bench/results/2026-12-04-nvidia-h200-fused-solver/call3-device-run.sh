#!/bin/bash
# call 3: f14 (A then the inverse on solver warps 0-1, P and the copy on warps 2-3), f15 (f14 + the producer requests block n + 2 after its vote on the tensor-core path), against f12
# against the landed build (g1): pytest -k fused, timelines, graph probe.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
cp $T/g1/python/gdn2/_eager* python/gdn2/
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
for V in f15 f14; do
  cp $T/$V/libgdn2_torch.so python/gdn2/
  timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-$V.log 2>&1; echo "rc=$?" >> $R/pytest-$V.log
  tail -2 $R/pytest-$V.log; mark pytest-$V
  cp $T/$V-t/libgdn2_torch.so python/gdn2/
  timeout 60 python3 $T/scripts/fused_timeline3.py > $R/timeline-$V.log 2>&1; echo rc=$? >> $R/timeline-$V.log
  grep "per block\|==" $R/timeline-$V.log; mark timeline-$V
done
for V in f12 f14 f15; do
  if [ $V = g1 ]; then cp $T/g1/python/gdn2/libgdn2_torch.so python/gdn2/; else cp $T/$V/libgdn2_torch.so python/gdn2/; fi
  left=$(( 580 - ($(date +%s) - t0) )); [ $left -lt 20 ] && break
  OUT=$R/probe-$V timeout $left python3 $T/scripts/fused_probe.py fused > $R/probe-$V.log 2>&1; echo rc=$? >> $R/probe-$V.log
  mark probe-$V
done
paste $R/probe-f12.log $R/probe-f14.log $R/probe-f15.log | cut -c1-200; cat $R/times.log
