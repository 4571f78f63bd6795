#!/bin/bash
# 0f519db: S4 and S5, ours and FLA in one process. device-run.sh's first group ran out of its 170 s
# during S4 (Triton's first compilations of FLA), and the device time left allowed only these two rows.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 GDN2_COMMIT=0f519db
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
(PYTHONPATH=python:$PWD/tools_tmp/site timeout 135 python3 bench/bench.py --rows S4,S5 --out $R/s4s5 > $R/s4s5.log 2>&1; echo "rc=$?" >> $R/s4s5.log)
echo "s4s5 done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
