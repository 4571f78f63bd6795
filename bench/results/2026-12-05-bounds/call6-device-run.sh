#!/bin/bash
# Call 6 (session of 2026-12-05 from 19:07): the landing build m (main's kernels with kAuto's
# refit) under the whole pytest suite (its AUTO table now expects two 1,024-token sequences with
# the hint on the fused path) and the C++ example.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
cp $T/m/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/m/bin/* build/
timeout 200 python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log; mark example
tail -n 4 $R/pytest.log; tail -n 2 $R/example.log; cat $R/gpu.txt $R/times.log
