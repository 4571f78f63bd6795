#!/bin/bash
# Session 2026-12-06 from 09:19, call 3: sw (main b8fea1b), sg (smem-wavefronts 1f5018f: the pair
# form's slot with fewer wavefronts), sh (wait-hint e7cdbfa: sg + every mbarrier wait with a
# suspend-time hint; its GVA pair persistent kernel spills 16 bytes): every row, three rounds
# alternating; bit-for-bit sh against sw; source counters of sh's v128 persistent kernel.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sw sg sh; do use $b
  timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sw sh; do use $b; timeout 60 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sw.pt $R/out-sh.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use sh
timeout 150 ncu --clock-control none -k regex:fused_persistent_kernel --launch-skip 1 --launch-count 1 \
    --section SourceCounters --import-source no -f -o $R/v128p-sh env PYTHONPATH=python python3 bench/ncu_rows.py B8x2K-MHA > $R/v128p-sh.log 2>&1
ncu --import $R/v128p-sh.ncu-rep --page source --csv --print-source sass > $R/v128p-sh-source.csv 2>>$R/v128p-sh.log; rm -f $R/v128p-sh.ncu-rep; mark ncu
tail -n 2 $R/bitwise.log; cat $R/times.log; pack
