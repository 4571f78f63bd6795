#!/bin/bash
# The next session's first call (prepared in the session of 2026-12-07 from 03:09): ab16/main =
# main 3a70f3a's kernels; fz = the failing channels' terms in the pair form (producer-marked) and
# the persistent 128-channel form (solver-found), main's SASS in the other kernels; fw = fz plus
# the persistent GVA pair (solver-found, inside the exact path's branch)
# (bench/results/2026-12-07-failing-channels/fz.patch, fw.patch, against main's fused.cuh).
# 1. three rounds main/fz/fw; 2. outputs main vs fw (bit for bit where no block fails the rule);
# 3. pytest (fused, decays, harmless values) on fw; 4. racecheck, memcheck, synccheck over the
# fused cases with strong decays on few channels and on all, and the g faults, on fw.
# Package: tar czf tools_tmp/c33.tgz -C tools_tmp ab16 s ; command (repository root of main):
#   tar xzf tools_tmp/c33.tgz -C tools_tmp && DEADLINE=260 bash tools_tmp/s/next17.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-300} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab16
V="main fz fw"
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; [ -d $T/$1/bin ] && cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for k in 1 2 3; do
  for v in $V; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
for v in main fw; do PYTHONPATH=$T/$v/python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; echo "rc=$?" >> $R/dump-$v.log; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-fw.pt > $R/compare-fw.log 2>&1; echo "rc=$?" >> $R/compare-fw.log
rm -f $R/dump-*.pt; mark compare; pack
use fw
L=$(( $(left) - 60 )); [ $L -gt 120 ] && L=120
PYTHONPATH=python timeout $L python3 -m pytest -q tests/python -k "fused or Fused or decays or harmless" > $R/pytest-fw.log 2>&1; echo "rc=$?" >> $R/pytest-fw.log
mark pytest-fw; pack
CASES=fault-g-fused,fault-values-fused,fused-pair-fewstrong-300+129+17+1,fused-pair-strong-300+129+17+1,fused-mha-rand20,fused-v128-fewstrong-rand70,fused-v128-strong-rand70,fused-v128-mha-rand40,fused-gvapair-fewstrong-300+129+17+1+300,fused-gvapair-strong-300+129+17+1+300,fault-g-fused-v128
L=$(( $(left) - 3 )); [ $L -gt 100 ] && L=100
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-fw SANITIZE_TIMEOUT=$L timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fw.log 2>&1; echo "rc=$?" >> $R/sanitize-fw.log
mark sanitize-fw; pack
cat $R/times.log; grep -h "rc=\|PASS\|FAIL\|hazard\|ERROR SUMMARY" $R/sanitize-*.log $R/san-fw/*.log 2>/dev/null | sort | uniq -c | tail -16; tail -n 3 $R/pytest-*.log; tail -n 20 $R/compare-fw.log
for v in $V; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
