#!/bin/bash
# Session 2026-12-06 from 10:14, call 5: kAuto's choice on the device for batches of many
# sequences. sy (main 0dd3dff: no choice where a path's grid is more than 16 rounds of CTAs, the
# fused and recurrent paths counted as one-item grids) against sz (branch choice-rounds: the
# persistent forms and the recurrent kernel counted as one round, no cap on the chunked pass's
# rounds): auto timed without and with the hint beside the forced paths (--set many --time-auto);
# then sz's kAuto GPU tests.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for b in sz sy; do use $b
  timeout 150 python3 bench/algorithm_crossover.py --set many --time-auto --replays 20 --out $R/many-$b > $R/many-$b.log 2>&1; echo "rc=$?" >> $R/many-$b.log; mark many-$b; pack
done
use sz
timeout 100 python3 -m pytest tests/python/test_forward_gpu.py -q -p no:cacheprovider -k "auto or choice or choose or chained or hint" > $R/pytest-auto.log 2>&1; echo "rc=$?" >> $R/pytest-auto.log; mark pytest-auto
tail -n 2 $R/pytest-auto.log; cat $R/many-*.log | grep -v "^wrote"; cat $R/times.log; pack
