#!/bin/bash
# Session 2026-12-04 (second), call 8: Nsight Compute (full set) of the 32-channel state pass on S2
# (the overlapped instantiation; under the profiler phase 1 has completed first) and S5 (the plain
# one), base (6dd6144's build) and qs; the details page as CSV.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
for v in poll qs; do
  for row in S2 S5; do
    (cd $T/$v && timeout 100 ncu --clock-control none -k regex:state_pass --launch-skip 1 --launch-count 1 --set full \
       --import-source no -o $R/ncu-$v-$row env PYTHONPATH=$T/$v/python python3 bench/ncu_rows.py $row > $R/ncu-$v-$row.log 2>&1)
    ncu -i $R/ncu-$v-$row.ncu-rep --page details --csv > $R/details-$v-$row.csv 2>> $R/ncu-$v-$row.log
    gzip -f $R/ncu-$v-$row.ncu-rep
    echo "$v $row done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
  done
done
