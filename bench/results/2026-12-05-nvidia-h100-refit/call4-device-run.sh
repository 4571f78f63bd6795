#!/bin/bash
# Call 4: the landed build (f = main + kAuto's fused estimates refitted; the fused kernels' SASS is
# 9479428's): the whole pytest suite, the example, the stress run; the timeline with its marks'
# stores moved after the first copies' requests (S1-fused, B8x2K-fused).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
mkdir -p build
cp $T/f/bin/* build/; cp $T/f/python/gdn2/*.so python/gdn2/
timeout 40 ./build/gdn2_phase1_timeline S1-fused B8x2K-fused > $R/timeline.log 2>&1; echo "rc=$?" >> $R/timeline.log
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log; mark timeline-example
L=$(cap 250 220); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
L=$(cap 440 180); [ $L -gt 40 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
grep -h 'start-up, median' $R/timeline.log; tail -n 2 $R/example.log; tail -n 2 $R/pytest.log; tail -n 3 $R/stress.log; cat $R/times.log
