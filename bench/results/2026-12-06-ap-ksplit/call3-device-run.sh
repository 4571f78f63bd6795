#!/bin/bash
# Session of 2026-12-06 from 18:51, call 3: the landed split (ab3/ks, branch ap-ksplit) under every
# check: the C++ example, memcheck and synccheck over the whole sanitizer matrix, racecheck over the
# whole matrix, the stress test; first a racecheck probe of ldmatrix before a named barrier
# (rp/ldmatrix_race_probe.cu, modes 0-2), for call 2's hazards in the pair-form split.
# Carry: tar czf tools_tmp/cN.tgz -C tools_tmp ab3 s rp ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && DEADLINE=420 bash tools_tmp/s/ks3.sh
set -u
R=$OUT/k3; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-420} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k3.tgz -C $OUT k3; }
T=tools_tmp/ab3
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cp $T/ks/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/ks/bin/* build/
for mode in 0 1 2; do
  timeout 30 compute-sanitizer --tool racecheck --racecheck-report all tools_tmp/rp/ldmatrix_race_probe $mode > $R/probe-$mode.log 2>&1; echo "rc=$?" >> $R/probe-$mode.log
done
mark probe; pack
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log; mark example
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck synccheck" OUT=$R/san SANITIZE_TIMEOUT=100 timeout 110 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; mark sanitize; pack
L=$(( $(left) - 110 )); [ $L -gt 60 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race SANITIZE_TIMEOUT=$(( L < 170 ? L : 170 )) timeout $(( L < 170 ? L + 5 : 175 )) bash scripts/gpu_check.sh sanitize > $R/racecheck.log 2>&1; echo "rc=$?" >> $R/racecheck.log; mark racecheck; pack; }
L=$(( $(left) - 5 )); [ $L -gt 30 ] && { PYTHONPATH=python timeout $(( L < 100 ? L : 100 )) python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; pack; }
cat $R/times.log; grep -h "hazard\|SUMMARY\|mode" $R/probe-*.log | head -12; tail -n 2 $R/example.log $R/stress.log 2>/dev/null; grep -h "compute-sanitizer" $R/sanitize.log $R/racecheck.log 2>/dev/null; pack
