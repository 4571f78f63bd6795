#!/bin/bash
# Prepared in the session of 2026-12-06 from 20:03 for the next device call (not yet run).
# ab6/main = main's build (bf18b9a's kernels); two candidates for the pair form's solver split by
# key channels (both change only fused_kernel<1, 2>):
#   kss = branch pair-ksplit-sync 1b1dd0a: four-way split, partials through the raw stage's g, the
#         exchange's second barrier a full bar.sync (ksr, with warps 0-1 arriving there, gave S1
#         -4.2% on an H200 but 100 racecheck RAW hazards in fused-pair-strong-300+129+17+1);
#   ks2 = branch pair-ksplit-pairs caa7c30: two-way split, each matrix's two warps swap partials
#         through Smem::ap_part (a 64-thread barrier per pair; raw stage untouched).
# 1. racecheck, memcheck, synccheck on the pair cases for each candidate;
# 2. outputs of each against main's; 3. three rounds main/kss/ks2 (S1, B4x4K-MHA, S3 and B8x2K-MHA
# as controls, S2 and S5 fused forced); 4. racecheck over the matrix on the candidate that was clean
# (kss first), then pytest on it.
# Carry: tar czf tools_tmp/cN.tgz -C tools_tmp ab6 s ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && DEADLINE=560 bash tools_tmp/s/next5.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab6
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gva2-8x40,fused-mha-rand20,fault-cu-fused,fault-g-fused,fault-values-fused
clean=""
for v in kss ks2; do
  use $v
  SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-$v SANITIZE_TIMEOUT=40 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize-$v.log 2>&1; rc=$?; echo "rc=$rc" >> $R/sanitize-$v.log
  [ $rc = 0 ] && clean="$clean $v"
  mark sanitize-$v; pack
done
echo "clean on the pair cases:$clean" >> $R/times.log
for v in main kss ks2; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
for v in kss ks2; do python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; echo "rc=$?" >> $R/compare-$v.log; done
rm -f $R/dump-*.pt; mark compare; pack
for k in 1 2 3; do
  for v in main kss ks2; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,B4x4K-MHA,S3,B8x2K-MHA --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log
     GDN2_COMMIT=$v timeout 30 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen --algorithm fused \
      --rows S2,S5 --out $R/abf-$v$k > $R/abf-$v$k.log 2>&1; echo "rc=$?" >> $R/abf-$v$k.log)
    mark ab-$v$k; pack
  done
done
pick=$(echo $clean | awk '{print $1}')
if [ -n "$pick" ]; then
  use $pick
  L=$(( $(left) - 10 )); [ $L -gt 60 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race-$pick SANITIZE_TIMEOUT=$(( L - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/racecheck-$pick.log 2>&1; echo "rc=$?" >> $R/racecheck-$pick.log; mark racecheck-$pick; pack; }
  L=$(( $(left) - 10 )); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-$pick.log 2>&1; echo "rc=$?" >> $R/pytest-$pick.log; mark pytest-$pick; pack; }
fi
cat $R/times.log; grep -h "compute-sanitizer" $R/sanitize-*.log $R/racecheck-*.log 2>/dev/null; tail -n 2 $R/compare-*.log $R/pytest-*.log 2>/dev/null
for v in main kss ks2; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SB]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}') $(grep '^| S' $R/abf-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
