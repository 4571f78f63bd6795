#!/bin/bash
# call 5: f16 (f14 + the inverse's rows by 16-byte reads) against g2 (f14): pytest -k fused, probes
# interleaved twice; Nsight Compute (full set, SASS source) of g2's fused kernel on S2 and B8x2K.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
cp $T/g2/python/gdn2/_eager* python/gdn2/
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
cp $T/f16/libgdn2_torch.so python/gdn2/
timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-f16.log 2>&1; echo "rc=$?" >> $R/pytest-f16.log
tail -2 $R/pytest-f16.log; mark pytest-f16
for k in 1 2; do for V in g2 f16; do
  if [ $V = g2 ]; then cp $T/g2/python/gdn2/libgdn2_torch.so python/gdn2/; else cp $T/$V/libgdn2_torch.so python/gdn2/; fi
  OUT=$R/probe-$V-$k timeout 100 python3 $T/scripts/fused_probe.py fused > $R/probe-$V-$k.log 2>&1; echo rc=$? >> $R/probe-$V-$k.log
  mark probe-$V-$k
done; done
paste $R/probe-g2-1.log $R/probe-f16-1.log $R/probe-g2-2.log $R/probe-f16-2.log | awk -F'\t' '{for(i=1;i<=NF;i++){split($i,a," "); printf "%s ", (i==1?a[1]" "a[2]:a[2])} print ""}'
cp $T/g2/python/gdn2/libgdn2_torch.so python/gdn2/
for row in S2 B8x2K; do
  timeout 120 ncu --clock-control none -k regex:fused_kernel --launch-skip 1 --launch-count 1 --set full --import-source no \
    -o $R/ncu-$row python3 $T/scripts/ncu_fused.py $row > $R/ncu-$row.log 2>&1
  ncu -i $R/ncu-$row.ncu-rep --page details > $R/ncu-$row-details.txt 2>&1
  ncu -i $R/ncu-$row.ncu-rep --page source --csv --print-source sass > $R/ncu-$row-sass.csv 2>$R/ncu-$row-sass.err
  rm -f $R/ncu-$row.ncu-rep
  mark ncu-$row
done
grep -E "Shared|shared|Stall|Issue Slot|Eligible|Active Warps|Duration|Throughput" $R/ncu-S2-details.txt | head -40
cat $R/times.log
