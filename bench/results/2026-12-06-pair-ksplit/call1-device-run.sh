#!/bin/bash
# Prepared in the session of 2026-12-06 from 18:51 for the next device call (not yet run).
# ab4/main: main 196be98's build (the 128-channel forms' split, landed); ab4/ksr: branch
# pair-ksplit-raw 4e9e290 (the pair form's solver split by key channels, partials through the raw
# stage's g). On whatever GPU comes:
#  1. racecheck probe (rp/ldmatrix_race_probe_512, modes 0-7), outputs ksr against main;
#  2. racecheck on ksr over the pair form's cases, then over the whole matrix; memcheck, synccheck;
#  3. three rounds main/ksr: S1, B4x4K-MHA, S3, B8x2K-MHA (controls), S2 and S5 fused forced;
#  4. pytest on ksr; the whole table with the hint on main (ksr if time).
# Carry: tar czf tools_tmp/cN.tgz -C tools_tmp ab4 s rp wheels ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && DEADLINE=540 bash tools_tmp/s/next2.sh
set -u
R=$OUT/x; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-540} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/x.tgz -C $OUT x; }
T=tools_tmp/ab4
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp $T/ksr/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/ksr/bin/* build/
for mode in 0 1 2 3 4 5 6 7; do
  timeout 30 compute-sanitizer --tool racecheck --racecheck-report all tools_tmp/rp/ldmatrix_race_probe_512 $mode > $R/probe-$mode.log 2>&1; echo "rc=$?" >> $R/probe-$mode.log
done
for v in main ksr; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-ksr.pt > $R/compare-ksr.log 2>&1; echo "rc=$?" >> $R/compare-ksr.log
rm -f $R/dump-*.pt; mark probe-compare; pack
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gva2-8x40,fused-mha-rand20,fault-cu-fused,fault-g-fused,fault-values-fused
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-pair SANITIZE_TIMEOUT=40 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize-pair.log 2>&1; echo "rc=$?" >> $R/sanitize-pair.log; mark sanitize-pair; pack
for k in 1 2 3; do
  for v in main ksr; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,B4x4K-MHA,S3,B8x2K-MHA --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log
     GDN2_COMMIT=$v timeout 30 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen --algorithm fused \
      --rows S2,S5 --out $R/abf-$v$k > $R/abf-$v$k.log 2>&1; echo "rc=$?" >> $R/abf-$v$k.log)
    mark ab-$v$k; pack
  done
done
L=$(( $(left) - 10 )); [ $L -gt 40 ] && { timeout $(( L < 150 ? L : 150 )) python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack; }
L=$(( $(left) - 10 )); [ $L -gt 60 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race SANITIZE_TIMEOUT=$(( L - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/racecheck.log 2>&1; echo "rc=$?" >> $R/racecheck.log; mark racecheck; pack; }
for v in main ksr; do
  L=$(( $(left) - 5 )); [ $L -gt 45 ] && { (cd $T/$v && GDN2_COMMIT=$v timeout $(( L < 60 ? L : 60 )) python3 bench/bench.py --no-fla --max-seqlen --out $R/full-$v > $R/full-$v.log 2>&1; echo "rc=$?" >> $R/full-$v.log); mark full-$v; pack; }
done
cat $R/times.log; grep -h "SUMMARY\|^mode" $R/probe-*.log | paste - - | head -8; tail -n 2 $R/pytest-all.log 2>/dev/null; grep -h "compute-sanitizer" $R/sanitize-pair.log $R/racecheck.log 2>/dev/null; tail -3 $R/compare-ksr.log; pack
