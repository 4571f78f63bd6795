#!/bin/bash
# Session of 2026-12-07 from 07:57, call 6: Nsight Compute's source counters (warp stall samples,
# instructions executed, shared-memory wavefronts per SASS instruction) of the fused kernels on
# main 1cfa015's build: the persistent 128-channel form (B8x2K-MHA), its GVA pair (N64-MIXED-GVA2)
# and the pair form (B4x4K-MHA), the third call of each (prof_driver.py), for
# bench/ncu_by_function.py --kernel-name ... --source src/kernels/fused.cuh.
set -u
R=$OUT/n; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
ncu --version > $R/ncu-version.txt 2>&1
for row in B8x2K-MHA N64-MIXED-GVA2 B4x4K-MHA; do
  timeout 150 ncu --section SourceCounters --section WarpStateStats --section SpeedOfLight --section LaunchStats \
    --clock-control none -k regex:fused -s 2 -c 1 -f -o /tmp/prof-$row python3 tools_tmp/s/prof_driver.py $row > $R/ncu-$row.log 2>&1
  echo "rc=$?" >> $R/ncu-$row.log
  ncu -i /tmp/prof-$row.ncu-rep --page source --csv --print-source sass 2>> $R/ncu-$row.log | gzip > $R/sass-$row.csv.gz
  ncu -i /tmp/prof-$row.ncu-rep --page details --csv > $R/details-$row.csv 2>> $R/ncu-$row.log
  tail -3 $R/ncu-$row.log
  ls -la $R/sass-$row.csv.gz
done
tar czf $OUT/n.tgz -C $OUT n
