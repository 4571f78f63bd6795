#!/bin/bash
# Call 4: role timelines of the pair form (apply_probe_pair.py on p3 = ps, and on the no-copy probe
# p3x = psx): cycles per block of CTA 0's producer, solvers and consumer on 1 x 1024 and 4 x 4096
# tokens, 16 heads, the fused path forced.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for V in ps psx; do
  cp $T/$V/python/gdn2/*.so python/gdn2/
  PYTHONPATH=python timeout 60 python3 bench/results/2026-12-05-pair/pair_timeline.py > $R/roles-$V.log 2>&1; echo "rc=$?" >> $R/roles-$V.log
done
cat $R/roles-ps.log $R/roles-psx.log $R/gpu.txt
