#!/bin/bash
# Session of 2026-12-07 from 03:09, call 2: ab15/main = main 3a70f3a's build; fy = the failing
# channels' terms in the persistent 128-channel form only (every other kernel's SASS is main's);
# fz = fy plus the pair form's (its producer marks the failing channels and zeroes their k / r).
# 1. three rounds main/fy/fz; 2. outputs main vs fz (bit for bit where no block fails the rule);
# 3. pytest (fused, decays) on fz; 4. racecheck, memcheck, synccheck on fused cases.
# Package: tar czf tools_tmp/c32.tgz -C tools_tmp ab15 s ; command:
#   tar xzf tools_tmp/c32.tgz -C tools_tmp && DEADLINE=280 bash tools_tmp/s/next16.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-300} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab15
V="main fy fz"
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; [ -d $T/$1/bin ] && cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for k in 1 2 3; do
  for v in $V; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
for v in main fz; do PYTHONPATH=$T/$v/python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; echo "rc=$?" >> $R/dump-$v.log; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-fz.pt > $R/compare-fz.log 2>&1; echo "rc=$?" >> $R/compare-fz.log
rm -f $R/dump-*.pt; mark compare; pack
use fz
L=$(( $(left) - 60 )); [ $L -gt 120 ] && L=120
PYTHONPATH=python timeout $L python3 -m pytest -q tests/python -k "fused or Fused or decays or harmless" > $R/pytest-fz.log 2>&1; echo "rc=$?" >> $R/pytest-fz.log
mark pytest-fz; pack
CASES=fault-g-fused,fault-values-fused,fused-pair-fewstrong-300+129+17+1,fused-pair-strong-300+129+17+1,fused-mha-rand20,fused-v128-fewstrong-rand70,fused-v128-strong-rand70,fused-v128-mha-rand40,fused-persistent-mha-rand70,fused-v128-many-mha-rand70,fault-g-fused-v128
L=$(( $(left) - 3 )); [ $L -gt 100 ] && L=100
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-fz SANITIZE_TIMEOUT=$L timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fz.log 2>&1; echo "rc=$?" >> $R/sanitize-fz.log
mark sanitize-fz; pack
cat $R/times.log; grep -h "rc=\|PASS\|FAIL\|hazard\|ERROR SUMMARY" $R/sanitize-*.log $R/san-fz/*.log 2>/dev/null | sort | uniq -c | tail -14; tail -n 3 $R/pytest-*.log; tail -n 20 $R/compare-fz.log
for v in $V; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
