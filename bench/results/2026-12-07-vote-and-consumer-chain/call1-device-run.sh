#!/bin/bash
# Call 1 (session of 2026-12-07): the 128-channel forms' consumers, three variants against main
# (ab9/main = main's build, bf18b9a's kernels): q = the first product in four quarters of 4 k-steps
# through two halves of fragments (wait_group 1), d = S^T diag(D) while T's product runs, qd = both
# (all three with the output's offsets in int32). 1. outputs main vs qd (expected bit for bit);
# 2. sanitizers on qd's fused cases; 3. three rounds of main/q/d/qd on the fused rows;
# 4. pytest on qd if time is left. Probes (wrong results by design, built on qd): pnowv = the
# 128-channel forms' producer forms no w*v (40 bytes spilled outside the block loop), pnovote =
# its range-rule vote by warp, without the producer's barrier (8 bytes spilled in the one-item GVA pair).
# Package: tar czf tools_tmp/c24.tgz -C tools_tmp ab9 s ; command:
#   tar xzf tools_tmp/c24.tgz -C tools_tmp && DEADLINE=420 bash tools_tmp/s/next9.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-420} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab9
V="main q d qd"
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; [ -d $T/$1/bin ] && cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for v in main qd; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-qd.pt > $R/compare-qd.log 2>&1; echo "rc=$?" >> $R/compare-qd.log
rm -f $R/dump-*.pt; mark compare; pack
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gvapair-300+129+17+1+300,fused-gvapair-strong-300+129+17+1+300,fused-v128-mha-rand40,fused-v128-strong-rand70,fused-persistent-mha-rand70,fused-v128-gva2-34x40,fused-mha-rand20,fault-values-fused-v128
use qd
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-qd SANITIZE_TIMEOUT=60 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize-qd.log 2>&1; echo "rc=$?" >> $R/sanitize-qd.log
mark sanitize-qd; pack
for k in 1 2 3; do
  VV="$V pnowv pnovote"; [ $k = 3 ] && VV="$V"
  for v in $VV; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
use qd
L=$(( $(left) - 10 )); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -x -p no:cacheprovider -k "fused or Fused" > $R/pytest-qd.log 2>&1; echo "rc=$?" >> $R/pytest-qd.log; mark pytest-qd; pack; }
cat $R/times.log; grep -h "ERROR SUMMARY\|rc=" $R/sanitize-*.log | sort | uniq -c; tail -n 2 $R/compare-*.log $R/pytest-*.log 2>/dev/null
for v in $V pnowv pnovote; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
