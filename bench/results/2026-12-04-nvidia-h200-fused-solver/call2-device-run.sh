#!/bin/bash
# call 2: f12 (A/P on the solver), f13 (f12 + W = T Kb, Y = T wv on the solver: the consumer's U product gone)
# against the landed build (g1): pytest -k fused, timelines, graph probe.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
cp $T/g1/python/gdn2/_eager* python/gdn2/
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
for V in f13 f12; do
  cp $T/$V/libgdn2_torch.so python/gdn2/
  timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-$V.log 2>&1; echo "rc=$?" >> $R/pytest-$V.log
  tail -2 $R/pytest-$V.log; mark pytest-$V
  cp $T/$V-t/libgdn2_torch.so python/gdn2/
  timeout 60 python3 $T/scripts/fused_timeline3.py > $R/timeline-$V.log 2>&1; echo rc=$? >> $R/timeline-$V.log
  grep "per block\|==" $R/timeline-$V.log; mark timeline-$V
done
for V in g1 f12 f13; do
  if [ $V = g1 ]; then cp $T/g1/python/gdn2/libgdn2_torch.so python/gdn2/; else cp $T/$V/libgdn2_torch.so python/gdn2/; fi
  left=$(( 580 - ($(date +%s) - t0) )); [ $left -lt 20 ] && break
  OUT=$R/probe-$V timeout $left python3 $T/scripts/fused_probe.py fused > $R/probe-$V.log 2>&1; echo rc=$? >> $R/probe-$V.log
  mark probe-$V
done
paste $R/probe-g1.log $R/probe-f12.log $R/probe-f13.log | cut -c1-200; cat $R/times.log
