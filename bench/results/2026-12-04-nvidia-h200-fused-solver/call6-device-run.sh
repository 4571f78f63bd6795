#!/bin/bash
# call 6: f17 (Kb, Qg stored by the producer straight into a 128-byte-swizzled operand, no copy) against g2; pytest -k "fused or auto" (f17 has the new kAuto), probes interleaved twice; ncu of f17 on S2
# interleaved twice; Nsight Compute (full set, SASS source) of g2's fused kernel on S2 and B8x2K.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
cp $T/g2/python/gdn2/_eager* python/gdn2/
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
cp $T/f17/libgdn2_torch.so python/gdn2/
timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k "fused or auto" -p no:cacheprovider > $R/pytest-f17.log 2>&1; echo "rc=$?" >> $R/pytest-f17.log
tail -2 $R/pytest-f17.log; mark pytest-f17
for k in 1 2; do for V in g2 f17; do
  if [ $V = g2 ]; then cp $T/g2/python/gdn2/libgdn2_torch.so python/gdn2/; else cp $T/$V/libgdn2_torch.so python/gdn2/; fi
  OUT=$R/probe-$V-$k timeout 100 python3 $T/scripts/fused_probe.py fused > $R/probe-$V-$k.log 2>&1; echo rc=$? >> $R/probe-$V-$k.log
  mark probe-$V-$k
done; done
paste $R/probe-g2-1.log $R/probe-f17-1.log $R/probe-g2-2.log $R/probe-f17-2.log | awk -F'\t' '{for(i=1;i<=NF;i++){split($i,a," "); printf "%s ", (i==1?a[1]" "a[2]:a[2])} print ""}'
cp $T/f17/libgdn2_torch.so python/gdn2/
for row in S2; do
  timeout 120 ncu --clock-control none -k regex:fused_kernel --launch-skip 1 --launch-count 1 --set full --import-source no \
    -o $R/ncu-$row python3 $T/scripts/ncu_fused.py $row > $R/ncu-$row.log 2>&1
  ncu -i $R/ncu-$row.ncu-rep --page details > $R/ncu-$row-details.txt 2>&1
  ncu -i $R/ncu-$row.ncu-rep --page source --csv --print-source sass > $R/ncu-$row-sass.csv 2>$R/ncu-$row-sass.err
  rm -f $R/ncu-$row.ncu-rep
  mark ncu-$row
done
grep -E "Shared|shared|Stall|Issue Slot|Eligible|Active Warps|Duration|Throughput" $R/ncu-S2-details.txt | head -40
cat $R/times.log
