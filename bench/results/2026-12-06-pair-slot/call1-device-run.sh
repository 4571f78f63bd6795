#!/bin/bash
# Session 2026-12-06 from 09:19, call 1: main b8fea1b (package sw) on whatever GPU came: the whole
# table with the hint, then Nsight Compute source counters (shared-memory wavefronts per SASS
# instruction, warp samples) of the fused 128-channel persistent kernel (B8x2K-MHA), the pair form
# (B4x4K-MHA) and the 32-channel pass (S2).
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
use sw
timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
prof() {  # name kernel-regex rows skip
  timeout 150 ncu --clock-control none -k regex:"$2" --launch-skip $4 --launch-count 1 \
    --section SourceCounters --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight --import-source no -f -o $R/$1 \
    env PYTHONPATH=python python3 bench/ncu_rows.py $3 > $R/$1.log 2>&1; echo "rc=$?" >> $R/$1.log
  ncu --import $R/$1.ncu-rep --page source --csv --print-source sass > $R/$1-source.csv 2>>$R/$1.log
  ncu --import $R/$1.ncu-rep --page details --csv > $R/$1-details.csv 2>>$R/$1.log
  rm -f $R/$1.ncu-rep; mark $1; pack
}
prof v128p fused_persistent_kernel B8x2K-MHA 1
prof pair "fused_kernel" B4x4K-MHA 1
prof pass32 state_pass_kernel S2 1
cat $R/times.log; pack
