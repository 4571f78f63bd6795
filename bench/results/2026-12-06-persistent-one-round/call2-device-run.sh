#!/bin/bash
# Session 2026-12-06 from 07:33, call 2: m1 (main fed9b2a) vs pall (branch persistent-one-round:
# the persistent 128-channel form and the persistent GVA pair also where their items fit one round
# of the SMs, i.e. in place of the one-item forms). Same-call A/B, alternating builds; pall's
# fused timeline (B8x2K-fused, 4x4K-gva2 not in it); pall's fused GPU tests.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
SHORT=8x1-hv16,128x1-hv16,7x8-hv16,8x64-hv16,8x256-hv16
LONG=8x512-hv16,8x1024-hv16,8x4096-hv16,4x1024-hv32
for round in 1 2 3; do for b in m1 pall; do use $b
  [ $(left) -lt 150 ] && break 2
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows B8x2K-MHA,B4x4K-GVA2,S3,N64-MIXED-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes $SHORT --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --set long --algorithms fused --shapes $LONG --out $R/crossl-$b-$round > $R/crossl-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use pall
timeout 40 tools_tmp/c2/gdn2_phase1_timeline B8x2K-fused > $R/timeline-pall.log 2>&1; echo "rc=$?" >> $R/timeline-pall.log; mark timeline; pack
L=$(( $(left) - 5 )); timeout $L python3 -m pytest tests/python -q -p no:cacheprovider -k "fused or persistent or auto or choice" > $R/pytest-pall.log 2>&1; echo "rc=$?" >> $R/pytest-pall.log; mark pytest-pall
tail -n 15 $R/pytest-pall.log; cat $R/times.log; pack
