#!/bin/bash
# Session of 2026-12-07 from 17:14, call 1. Main be92dc4 (build-land, python/gdn2/*.so carried).
# Part 0, any GPU: bench/copy_rate.cu (build-land/gdn2_copy_rate carried), how fast a chunk's factor
# group lands, plain and multicast.
# Part 1, any GPU: Nsight Compute on the 64-channel pass (S4) and the 32-channel pass (S2), the third
# call's pass of each (as 2026-12-07-one-product/call3-device-run.sh, prepared there and never run).
# Part 2, only on an H200: main's whole table with the hint (no FLA), then the GPU tests.
# Carry: python/gdn2/*.so, build-land/gdn2_copy_rate; bench/results moved out.
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
R=$OUT/p; mkdir -p $R
pack() { tar czf $OUT/p.tgz -C $OUT p; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
timeout 60 ./build-land/gdn2_copy_rate > $R/copy-rate.md 2>&1; echo "rc=$?" >> $R/copy-rate.md; cat $R/copy-rate.md; pack
for row in S4 S2; do
  timeout 150 ncu --clock-control none -k regex:state_pass_kernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section SourceCounters --section LaunchStats --section Occupancy \
    --import-source no -o $R/pass-$row env PYTHONPATH=python python3 bench/ncu_rows.py $row > $R/ncu-$row.log 2>&1
  echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/ncu-$row.log
  ncu -i $R/pass-$row.ncu-rep --page details --csv > $R/details-$row.csv 2>> $R/ncu-$row.log
  ncu -i $R/pass-$row.ncu-rep --page raw --csv > $R/raw-$row.csv 2>> $R/ncu-$row.log
  ncu -i $R/pass-$row.ncu-rep --page source --csv --print-source sass > $R/source-$row.csv 2>> $R/ncu-$row.log
  python3 bench/ncu_segments.py $R/source-$row.csv > $R/segments-$row.txt 2>&1
  gzip -f $R/source-$row.csv $R/raw-$row.csv; rm -f $R/pass-$row.ncu-rep
  pack
done
for row in S4 S2; do
  echo "== $row"; tail -2 $R/ncu-$row.log
  grep -E '"(Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|DRAM Throughput|Compute \(SM\) Throughput|Duration|Elapsed Cycles|No Eligible|Issued Warp Per Scheduler|Warp Cycles Per Issued Instruction|Max Bandwidth|L2 Hit Rate|Mem Busy|Mem Pipes Busy|Grid Size|Block Size)"' $R/details-$row.csv | awk -F'","' '{print $(NF-3), $(NF-2), $(NF-1)}' | head -24
done
grep -q H200 $R/gpu.txt || { echo "not an H200: no table"; pack; exit 0; }
GDN2_COMMIT=be92dc4 PYTHONPATH=python timeout 150 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/full-hint.log; pack
L=$(( 560 - ($(date +%s) - t0) ))
if [ $L -gt 60 ]; then
  PYTHONPATH=python timeout $L python3 -m pytest -q -p no:cacheprovider -rs tests/python/*_gpu.py > $R/pytest.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/pytest.log
fi
pack
tail -3 $R/pytest.log 2>/dev/null
grep -E '^\| ' $R/full-hint/results.md | cut -c1-200
