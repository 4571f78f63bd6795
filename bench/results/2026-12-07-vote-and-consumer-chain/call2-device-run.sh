#!/bin/bash
# Call 2 (session of 2026-12-07): the range rule's vote without the producer's barrier.
# ab10/main = main's build (bf18b9a's kernels); qd = call 1's qd (quarters, decay during T's
# product, int32 output offsets); vwa = qd + each producer warp votes alone (atomicMax of the
# block's index into Smem::exact_block, read by the solver after `formed`), the decay factors
# written over g on every block; vws = qd + the vote by warp, the decay factors written by the
# solver on exact blocks only (4-8 bytes spilled in the one-item forms and the GVA pair's);
# pnovote = call 1's probe (warp vote, wrong on exact blocks).
# 1. outputs main vs vwa and vws (expected bit for bit); 2. sanitizers on vwa's fused cases;
# 3. three rounds of the five builds; 4. pytest and racecheck over the matrix on vwa, if time is left.
# Package: tar czf tools_tmp/c25.tgz -C tools_tmp ab10 s ; command:
#   tar xzf tools_tmp/c25.tgz -C tools_tmp && DEADLINE=400 bash tools_tmp/s/next10.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-400} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab10
V="main qd vwa vws pnovote"
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; [ -d $T/$1/bin ] && cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for v in main vwa vws; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
for v in vwa vws; do python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; echo "rc=$?" >> $R/compare-$v.log; done
rm -f $R/dump-*.pt; mark compare; pack
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gvapair-300+129+17+1+300,fused-gvapair-strong-300+129+17+1+300,fused-v128-mha-rand40,fused-v128-strong-rand70,fused-persistent-mha-rand70,fused-v128-gva2-34x40,fused-mha-rand20,fault-values-fused-v128,fault-g-fused,fault-g-fused-v128
use vwa
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-vwa SANITIZE_TIMEOUT=60 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize-vwa.log 2>&1; echo "rc=$?" >> $R/sanitize-vwa.log
mark sanitize-vwa; pack
for k in 1 2 3; do
  for v in $V; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
use vwa
L=$(( $(left) - 10 )); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -x -p no:cacheprovider > $R/pytest-vwa.log 2>&1; echo "rc=$?" >> $R/pytest-vwa.log; mark pytest-vwa; pack; }
L=$(( $(left) - 10 )); [ $L -gt 60 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race-vwa SANITIZE_TIMEOUT=$(( L - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/racecheck-vwa.log 2>&1; echo "rc=$?" >> $R/racecheck-vwa.log; mark racecheck-vwa; pack; }
cat $R/times.log; grep -h "compute-sanitizer\|rc=" $R/sanitize-*.log $R/racecheck-*.log 2>/dev/null; tail -n 2 $R/compare-*.log $R/pytest-*.log 2>/dev/null
for v in $V; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
