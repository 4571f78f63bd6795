#!/bin/bash
# Prepared in the session of 2026-12-06 from 20:53 (not run: four starts failed after call 2, one
# call was refused, then too little device time was left). ks4 = branch pair-ksplit-quarters (bd86f37's
# kernel): the pair form's solver split four ways by key channels, the partials through
# Smem::ap_part in two swaps of two warps each. ab7/main = main's build (bf18b9a's kernels);
# ab7/kss = pair-ksplit-sync 1b1dd0a (kss-pair-ksplit-sync.patch: four-way, partials through the
# raw stage's g; racecheck hazards in calls 1 and 2). 1. racecheck, memcheck, synccheck on the pair
# cases for ks4; 2. outputs of ks4 against main's; 3. three rounds main/kss/ks4 (S1, B4x4K-MHA, S3
# and B8x2K-MHA as controls, S2 and S5 fused forced); 4. if ks4 was clean: racecheck over the
# matrix, then pytest.
# Package: tools_tmp/ab7/{main,kss,ks4} (python/gdn2, bench/*.py, bin/), carried as
#   tar czf tools_tmp/c22.tgz -C tools_tmp ab7 s   (this file as tools_tmp/s/next6.sh); command:
#   tar xzf tools_tmp/c22.tgz -C tools_tmp && DEADLINE=430 bash tools_tmp/s/next6.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-430} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab7
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gva2-8x40,fused-mha-rand20,fault-cu-fused,fault-g-fused,fault-values-fused
use ks4
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-ks4 SANITIZE_TIMEOUT=40 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize-ks4.log 2>&1; rc=$?; echo "rc=$rc" >> $R/sanitize-ks4.log
clean=""; [ $rc = 0 ] && clean=ks4
mark sanitize-ks4; pack
for v in main ks4; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-ks4.pt > $R/compare-ks4.log 2>&1; echo "rc=$?" >> $R/compare-ks4.log
rm -f $R/dump-*.pt; mark compare; pack
for k in 1 2 3; do
  for v in main kss ks4; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,B4x4K-MHA,S3,B8x2K-MHA --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log
     GDN2_COMMIT=$v timeout 30 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen --algorithm fused \
      --rows S2,S5 --out $R/abf-$v$k > $R/abf-$v$k.log 2>&1; echo "rc=$?" >> $R/abf-$v$k.log)
    mark ab-$v$k; pack
  done
done
if [ -n "$clean" ]; then
  use ks4
  L=$(( $(left) - 10 )); [ $L -gt 60 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race-ks4 SANITIZE_TIMEOUT=$(( L - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/racecheck-ks4.log 2>&1; echo "rc=$?" >> $R/racecheck-ks4.log; mark racecheck-ks4; pack; }
  L=$(( $(left) - 10 )); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-ks4.log 2>&1; echo "rc=$?" >> $R/pytest-ks4.log; mark pytest-ks4; pack; }
fi
cat $R/times.log; grep -h "compute-sanitizer" $R/sanitize-*.log $R/racecheck-*.log 2>/dev/null; tail -n 2 $R/compare-*.log $R/pytest-*.log 2>/dev/null
for v in main kss ks4; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SB]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}') $(grep '^| S' $R/abf-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
