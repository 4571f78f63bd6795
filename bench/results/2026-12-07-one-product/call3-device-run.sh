#!/bin/bash
# Session of 2026-12-07 from 16:01, prepared as call 6 (this folder's call 3) and refused: too little
# device time left to start a machine. What sets the passes'
# chunks: Nsight Compute on main's 64-channel pass (S4) and 32-channel pass (S2), the third call's
# pass of each, with SpeedOfLight, MemoryWorkloadAnalysis (L2 and shared-memory throughput),
# WarpStateStats, SchedulerStats and SourceCounters (the SASS page grouped by bench/ncu_segments.py).
# Under the profiler each pass runs after phase 1. Carry: tools_tmp/c14.tgz (ab1/main); bench/results moved out.
R=$OUT/p; mkdir -p $R
tar xzf tools_tmp/c14.tgz -C tools_tmp ab1/main || exit 2
cp tools_tmp/ab1/main/python/gdn2/*.so python/gdn2/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
for row in S4 S2; do
  timeout 120 ncu --clock-control none -k regex:state_pass_kernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section SourceCounters --import-source no -o $R/pass-$row env PYTHONPATH=python python3 bench/ncu_rows.py $row > $R/ncu-$row.log 2>&1
  echo "rc=$?" >> $R/ncu-$row.log
  ncu -i $R/pass-$row.ncu-rep --page details --csv > $R/details-$row.csv 2>> $R/ncu-$row.log
  ncu -i $R/pass-$row.ncu-rep --page source --csv --print-source sass > $R/source-$row.csv 2>> $R/ncu-$row.log
  python3 bench/ncu_segments.py $R/source-$row.csv > $R/segments-$row.txt 2>&1
  gzip -f $R/source-$row.csv; rm -f $R/pass-$row.ncu-rep
done
tar czf $OUT/p.tgz -C $OUT p
for row in S4 S2; do
  echo "== $row"; tail -2 $R/ncu-$row.log
  grep -E '"(Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|DRAM Throughput|Compute \(SM\) Throughput|Duration|Elapsed Cycles|No Eligible|Issued Warp Per Scheduler|Warp Cycles Per Issued Instruction|Max Bandwidth|L2 Hit Rate|Mem Busy|Mem Pipes Busy)"' $R/details-$row.csv | awk -F'","' '{print $(NF-3), $(NF-2), $(NF-1)}' | head -20
  cat $R/segments-$row.txt
done
