#!/bin/bash
# Session of 2026-12-06 from 18:51, call 1: the 128-channel forms' solver warps split A and P by key
# channels (branch ap-ksplit, package ab2/ks) against main's build (ab2/base), on whatever GPU comes.
#  1. outputs of both builds (bench/outputs_bitwise.py: the split changes the sums' order, so they
#     differ in the last bits; the log shows by how much);
#  2. three rounds, versions alternating: bench.py on the 128-channel forms' rows and two controls
#     (S1, B4x4K-MHA: the pair form, whose code did not change);
#  3. every GPU test on ks; racecheck and memcheck over the matrix's 128-channel cases on ks;
#  4. ks's whole table with the hint and accuracy.
# Carry: tar czf tools_tmp/cN.tgz -C tools_tmp ab2 s wheels ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && DEADLINE=560 bash tools_tmp/s/ks.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp $T/ks/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/ks/bin/* build/
for v in base ks; do
  PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1
done
python3 bench/outputs_bitwise.py compare $R/dump-base.pt $R/dump-ks.pt > $R/compare-ks.log 2>&1; echo "rc=$?" >> $R/compare-ks.log
rm -f $R/dump-*.pt; mark compare; pack
ROWS=B8x2K-MHA,N64-MIXED-MHA,S3,B8x2K-GVA2,B4x4K-GVA2,N64-MIXED-GVA2,S1,B4x4K-MHA
for k in 1 2 3; do
  for v in base ks; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout $(( L < 60 ? L : 60 )) python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows $ROWS --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1); echo "rc=$?" >> $R/ab-$v$k.log
    mark ab-$v$k; pack
  done
done
L=$(( $(left) - 10 )); [ $L -gt 40 ] && { timeout $(( L < 150 ? L : 150 )) python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack; }
CASES=fused-v128-mha-rand40,fused-v128-gva2-34x40,fused-v128-many-mha-rand70,fused-v128-strong-rand70,fused-persistent-long-60,fused-gva2-8x40,fused-mha-rand20,fault-cu-fused-gvapair-persistent,fused-gvapair-one-item-257x128,fused-persistent-1x200
L=$(( $(left) - 10 )); [ $L -gt 40 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san SANITIZE_TIMEOUT=$(( L / 2 - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; mark sanitize; pack; }
L=$(( $(left) - 5 )); [ $L -gt 60 ] && { timeout $(( L < 100 ? L : 100 )) python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack; }
cat $R/times.log; tail -n 3 $R/pytest-all.log 2>/dev/null; grep -h "compute-sanitizer" $R/sanitize.log 2>/dev/null; tail -3 $R/compare-ks.log; pack
