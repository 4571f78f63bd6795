#!/bin/bash
# Call 4 (session of 2026-12-06 from 23:54): ks4e = ks4 (branch pair-ksplit-quarters, bd86f37)
# with one bar.sync of the solver's four warps (its solver_sync id, 128 threads) before the
# partials' first writes of each block (branch pair-ksplit-entry). Call 3 found ks4's racecheck
# report (the first swap's write against a read of it, taken here for the previous block's) and
# S1 -3.1%.
# ab8/main = main's build (bf18b9a's kernels). 1. racecheck, memcheck, synccheck on the pair cases;
# 2. outputs against main's; 3. three rounds main/ks4e (S1, B4x4K-MHA, S3 and B8x2K-MHA as
# controls; S2 and S5 fused forced); 4. if clean: racecheck over the matrix, then pytest.
# Package: tar czf tools_tmp/c23.tgz -C tools_tmp ab8 s   (this file as tools_tmp/s/next8.sh); command:
#   tar xzf tools_tmp/c23.tgz -C tools_tmp && DEADLINE=400 bash tools_tmp/s/next8.sh
# (run with DEADLINE=250 on the device time left: steps 1-3 only, 116 s; step 4 was skipped since
# step 1 was not clean)
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-430} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab8
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gva2-8x40,fused-mha-rand20,fault-cu-fused,fault-g-fused,fault-values-fused
use ks4e
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-ks4e SANITIZE_TIMEOUT=40 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize-ks4e.log 2>&1; rc=$?; echo "rc=$rc" >> $R/sanitize-ks4e.log
clean=""; [ $rc = 0 ] && clean=ks4e
mark sanitize-ks4e; pack
for v in main ks4e; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-ks4e.pt > $R/compare-ks4e.log 2>&1; echo "rc=$?" >> $R/compare-ks4e.log
rm -f $R/dump-*.pt; mark compare; pack
for k in 1 2 3; do
  for v in main ks4e; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,B4x4K-MHA,S3,B8x2K-MHA --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log
     GDN2_COMMIT=$v timeout 30 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen --algorithm fused \
      --rows S2,S5 --out $R/abf-$v$k > $R/abf-$v$k.log 2>&1; echo "rc=$?" >> $R/abf-$v$k.log)
    mark ab-$v$k; pack
  done
done
if [ -n "$clean" ]; then
  use ks4e
  L=$(( $(left) - 10 )); [ $L -gt 60 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race-ks4e SANITIZE_TIMEOUT=$(( L - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/racecheck-ks4e.log 2>&1; echo "rc=$?" >> $R/racecheck-ks4e.log; mark racecheck-ks4e; pack; }
  L=$(( $(left) - 10 )); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-ks4e.log 2>&1; echo "rc=$?" >> $R/pytest-ks4e.log; mark pytest-ks4e; pack; }
fi
cat $R/times.log; grep -h "compute-sanitizer" $R/sanitize-*.log $R/racecheck-*.log 2>/dev/null; tail -n 2 $R/compare-*.log $R/pytest-*.log 2>/dev/null
for v in main ks4e; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SB]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}') $(grep '^| S' $R/abf-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
