#!/bin/bash
# Session of 2026-12-07 from 03:09, call 1: ab14/main = main 3a70f3a's build; fx = the failing
# channels' terms (fewexact branch: the solver finds a failed vote's channels, the tensor-core path
# over the others, their terms in fp32; the GVA pair as main); qdxe as in next14.sh.
# 0. exact blocks of every row's inputs; 1. two rounds main/fx/qdxe; 2. pytest (fused, decays) on
# fx; 3. racecheck, memcheck, synccheck on fused cases, the few-strong ones included.
# Package: tar czf tools_tmp/c30.tgz -C tools_tmp ab14 s ; command:
#   tar xzf tools_tmp/c30.tgz -C tools_tmp && DEADLINE=290 bash tools_tmp/s/next15.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-300} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab14
V="main fx qdxe"
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; [ -d $T/$1/bin ] && cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
PYTHONPATH=$T/main/python timeout 50 python3 bench/results/2026-12-07-vote-and-consumer-chain/count_exact_blocks.py > $R/exact-blocks.log 2>&1; echo "rc=$?" >> $R/exact-blocks.log
mark exact-blocks; pack
for k in 1 2; do
  for v in $V; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
use fx
L=$(( $(left) - 75 )); [ $L -gt 140 ] && L=140
PYTHONPATH=python timeout $L python3 -m pytest -q -x tests/python -k "fused or Fused or decays" > $R/pytest-fx.log 2>&1; echo "rc=$?" >> $R/pytest-fx.log
mark pytest-fx; pack
CASES=fused-pair-fewstrong-300+129+17+1,fused-v128-fewstrong-rand70,fused-pair-strong-300+129+17+1,fused-v128-strong-rand70,fused-v128-mha-rand40,fused-persistent-mha-rand70,fused-mha-rand20,fused-gvapair-strong-300+129+17+1+300
L=$(( $(left) - 3 )); [ $L -gt 100 ] && L=100
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-fx SANITIZE_TIMEOUT=$L timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fx.log 2>&1; echo "rc=$?" >> $R/sanitize-fx.log
mark sanitize-fx; pack
cat $R/times.log; cat $R/exact-blocks.log; grep -h "rc=\|PASS\|FAIL\|hazard\|ERROR SUMMARY" $R/sanitize-*.log 2>/dev/null | tail -14; tail -n 4 $R/pytest-*.log
for v in $V; do for k in 1 2; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
