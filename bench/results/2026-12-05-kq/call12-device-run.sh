#!/bin/bash
# Call 12 (asked for an H200, for the README's H200 table): main's kernels (sf3 = 11f8ae2, whose
# sources 3fb7cee squashes) benchmarked with the fp64 accuracy check, with and without the hint
# (no FLA).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 GDN2_COMMIT=3fb7cee
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
cp $T/sf3/python/gdn2/*.so python/gdn2/
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
timeout 90 python3 bench/bench.py --no-fla --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
cat $R/gpu.txt $R/times.log
