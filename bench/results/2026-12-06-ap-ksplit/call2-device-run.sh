#!/bin/bash
# Session of 2026-12-06 from 18:51, call 2: main's build (ab3/base), the 128-channel forms' K-split as
# landed on branch ap-ksplit (ab3/ks: the same instructions as call 1's ks, the split's partials
# placed last in shared memory so that the pair form's SASS is main's), and the pair form's solvers
# split the same way (ab3/ksp, branch pair-ksplit). On whatever GPU comes.
#  1. outputs: ks against base, ksp against ks;
#  2. three rounds, versions taking turns: the hinted rows of both fused forms, and S2, S5 fused forced
#     (the pair form);
#  3. every GPU test on ksp; racecheck and memcheck over the matrix's fused cases on ksp;
#  4. the whole table with the hint and accuracy on ks, then on ksp.
# Carry: tar czf tools_tmp/cN.tgz -C tools_tmp ab3 s ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && DEADLINE=440 bash tools_tmp/s/ks2.sh
set -u
R=$OUT/k2; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-440} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k2.tgz -C $OUT k2; }
T=tools_tmp/ab3
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp $T/ksp/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/ksp/bin/* build/
for v in base ks ksp; do
  PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1
done
python3 bench/outputs_bitwise.py compare $R/dump-base.pt $R/dump-ks.pt > $R/compare-ks.log 2>&1; echo "rc=$?" >> $R/compare-ks.log
python3 bench/outputs_bitwise.py compare $R/dump-ks.pt $R/dump-ksp.pt > $R/compare-ksp.log 2>&1; echo "rc=$?" >> $R/compare-ksp.log
rm -f $R/dump-*.pt; mark compare; pack
ROWS=B8x2K-MHA,N64-MIXED-MHA,S3,B8x2K-GVA2,B4x4K-GVA2,N64-MIXED-GVA2,S1,B4x4K-MHA
for k in 1 2 3; do
  for v in base ks ksp; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout $(( L < 60 ? L : 60 )) python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows $ROWS --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log
     GDN2_COMMIT=$v timeout 30 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen --algorithm fused \
      --rows S2,S5 --out $R/abf-$v$k > $R/abf-$v$k.log 2>&1; echo "rc=$?" >> $R/abf-$v$k.log)
    mark ab-$v$k; pack
  done
done
L=$(( $(left) - 10 )); [ $L -gt 40 ] && { timeout $(( L < 150 ? L : 150 )) python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack; }
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gva2-8x40,fused-mha-rand20,fused-v128-mha-rand40,fused-v128-gva2-34x40,fused-v128-strong-rand70,fused-persistent-long-60,fault-cu-fused
L=$(( $(left) - 10 )); [ $L -gt 40 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san SANITIZE_TIMEOUT=$(( L / 2 - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; mark sanitize; pack; }
for v in ks ksp; do
  L=$(( $(left) - 5 )); [ $L -gt 45 ] && { (cd $T/$v && GDN2_COMMIT=$v timeout $(( L < 60 ? L : 60 )) python3 bench/bench.py --no-fla --max-seqlen --out $R/full-$v > $R/full-$v.log 2>&1; echo "rc=$?" >> $R/full-$v.log); mark full-$v; pack; }
done
cat $R/times.log; tail -n 2 $R/pytest-all.log 2>/dev/null; grep -h "compute-sanitizer" $R/sanitize.log 2>/dev/null; tail -2 $R/compare-ks*.log; pack
