#!/bin/bash
# Session 2026-12-06 from 09:19, call 5: sf (main 29aabd9) against sv (26439dd: the GVA pair's roles
# wait suspending too) and sa (1026bdf: every fused form's roles): the 128-channel and GVA-pair
# rows, three rounds alternating; bit-for-bit sa against sf; sf's fused rows without the hint;
# source counters of sf's pair form on B4x4K-MHA.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sf sv sa; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S3,N64,B8x2K,B4x4K --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sf sa; do use $b; timeout 60 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sf.pt $R/out-sa.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise
use sf
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint-sf > $R/nohint-sf.log 2>&1; mark nohint
timeout 150 ncu --clock-control none -k regex:"fused_kernel" --launch-skip 1 --launch-count 1 \
    --section SourceCounters --import-source no -f -o $R/pair-sf env PYTHONPATH=python python3 bench/ncu_rows.py B4x4K-MHA > $R/pair-sf.log 2>&1
ncu --import $R/pair-sf.ncu-rep --page source --csv --print-source sass > $R/pair-sf-source.csv 2>>$R/pair-sf.log; rm -f $R/pair-sf.ncu-rep; mark ncu
tail -n 2 $R/bitwise.log; cat $R/times.log; pack
