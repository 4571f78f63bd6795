#!/bin/bash
# Session of 2026-12-06 from 20:03, call 4: ab5/main = main 2755d76's build; ab5/kss = branch
# pair-ksplit-sync (pair-ksplit-raw with the second barrier of the partials' exchange a full
# bar.sync of the four warps instead of warps 0-1 bar.arrive, 2-3 bar.sync). racecheck on the pair
# cases (the strong one reported 100 RAW hazards with the arrive), outputs kss vs main, three
# rounds main/kss, then racecheck over the matrix with what is left.
# Carry: tar czf tools_tmp/cN.tgz -C tools_tmp ab5 s ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && DEADLINE=280 bash tools_tmp/s/next4.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-280} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab5
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp $T/kss/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/kss/bin/* build/
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gva2-8x40,fused-mha-rand20,fault-cu-fused,fault-g-fused,fault-values-fused
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-pair SANITIZE_TIMEOUT=40 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize-pair.log 2>&1; echo "rc=$?" >> $R/sanitize-pair.log; mark sanitize-pair; pack
for v in main kss; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-kss.pt > $R/compare-kss.log 2>&1; echo "rc=$?" >> $R/compare-kss.log
rm -f $R/dump-*.pt; mark compare; pack
for k in 1 2 3; do
  for v in main kss; do
    L=$(( $(left) - 5 )); [ $L -lt 30 ] && break
    (cd $T/$v && GDN2_COMMIT=$v timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,B4x4K-MHA,S3,B8x2K-MHA --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log
     GDN2_COMMIT=$v timeout 30 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen --algorithm fused \
      --rows S2,S5 --out $R/abf-$v$k > $R/abf-$v$k.log 2>&1; echo "rc=$?" >> $R/abf-$v$k.log)
    mark ab-$v$k; pack
  done
done
L=$(( $(left) - 5 )); [ $L -gt 30 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race SANITIZE_TIMEOUT=$(( L - 5 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/racecheck.log 2>&1; echo "rc=$?" >> $R/racecheck.log; mark racecheck; pack; }
cat $R/times.log; grep -h "compute-sanitizer" $R/sanitize-pair.log $R/racecheck.log 2>/dev/null; tail -3 $R/compare-kss.log
for v in main kss; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SB]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}') $(grep '^| S' $R/abf-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
