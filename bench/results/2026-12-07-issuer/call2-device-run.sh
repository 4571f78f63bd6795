#!/bin/bash
# Session of 2026-12-07 from 16:01, call 2. Where the 32-channel pass's warps stall: Nsight
# Compute's warp-stall samples of the pass kernel on S2 and S5 (the third call's pass; under the
# profiler the pass runs after phase 1), per SASS instruction, grouped into the stretches between
# CTA barriers by bench/ncu_segments.py, with the warp-state and scheduler sections. Main's build
# (3f4d0a3's, the plain kernels of HEAD). On an H200, also main's whole table, FLA row by row and
# the GPU tests (../2026-12-07-item-cost/h200-main-device-run.sh).
# Carry: tools_tmp/c11.tgz (ab1/main), tools_tmp/wheels; bench/results moved out.
t0=$(date +%s)
R=$OUT/n; mkdir -p $R
tar xzf tools_tmp/c11.tgz -C tools_tmp ab1/main || exit 2
cp tools_tmp/ab1/main/python/gdn2/*.so python/gdn2/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
for row in S2 S5; do
  timeout 150 ncu --clock-control none -k regex:state_pass_kernel --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --import-source no -o $R/pass-$row env PYTHONPATH=python python3 bench/ncu_rows.py $row > $R/ncu-$row.log 2>&1
  echo "rc=$?" >> $R/ncu-$row.log
  ncu -i $R/pass-$row.ncu-rep --page source --csv --print-source sass > $R/source-$row.csv 2>> $R/ncu-$row.log
  ncu -i $R/pass-$row.ncu-rep --page details --csv > $R/details-$row.csv 2>> $R/ncu-$row.log
  python3 bench/ncu_segments.py $R/source-$row.csv > $R/segments-$row.txt 2>&1
  gzip -f $R/source-$row.csv; rm -f $R/pass-$row.ncu-rep
done
tar czf $OUT/n.tgz -C $OUT n
tail -3 $R/ncu-S2.log; cat $R/segments-S2.txt; grep -i "stall\|warp cycles per issued\|issued warp\|No Eligible" $R/details-S2.csv | cut -c1-200 | head -40
echo "elapsed $(( $(date +%s) - t0 ))s"
if grep -q H200 $R/gpu.txt; then
  C=bfbb697 DEADLINE=$(( 585 - ($(date +%s) - t0) )) bash ${H200_SCRIPT:-bench/results/2026-12-07-item-cost/h200-main-device-run.sh}
fi
