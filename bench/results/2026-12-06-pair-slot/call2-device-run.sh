#!/bin/bash
# Session 2026-12-06 from 09:19, call 2: package sm (branch smem-wavefronts: the producer's w*v
# stores without bank conflicts, D read as float4s in the pair forms) against sw (main b8fea1b):
# the fused rows, three rounds alternating; bit-for-bit outputs; source counters of sm's v128
# persistent kernel on B8x2K-MHA; every GPU test on sm.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sw sm; do use $b
  timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64,B8x2K,B4x4K --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sw sm; do use $b; timeout 60 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sw.pt $R/out-sm.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use sm
timeout 150 ncu --clock-control none -k regex:fused_persistent_kernel --launch-skip 1 --launch-count 1 \
    --section SourceCounters --import-source no -f -o $R/v128p-sm env PYTHONPATH=python python3 bench/ncu_rows.py B8x2K-MHA > $R/v128p-sm.log 2>&1
ncu --import $R/v128p-sm.ncu-rep --page source --csv --print-source sass > $R/v128p-sm-source.csv 2>>$R/v128p-sm.log; rm -f $R/v128p-sm.ncu-rep; mark ncu; pack
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-sm.log 2>&1; echo "rc=$?" >> $R/pytest-sm.log; mark pytest-sm
tail -n 3 $R/pytest-sm.log; cat $R/bitwise.log | tail -3; cat $R/times.log; pack
