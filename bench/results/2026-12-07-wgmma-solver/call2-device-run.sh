#!/bin/bash
# Session of 2026-12-07 from 07:57, call 2: main 1cfa015's build (ab1/main; its kernels f1956de's)
# checked whole: the table, every GPU test (tests/python/*_gpu.py; the CPU tests run in CI), the
# stress test, the example and memcheck/synccheck over the whole sanitizer matrix, then racecheck
# over the matrix's fused and persistent cases (fusedcases.txt: 52 ran) with the time left.
set -u
R=$OUT/v; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-520} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/v.tgz -C $OUT v; }
T=tools_tmp/ab1/main
cp $T/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/bin/* build/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
GDN2_COMMIT=1cfa015 timeout 70 python3 bench/bench.py --no-fla --max-seqlen --out $R/full > $R/full.log 2>&1; echo "rc=$?" >> $R/full.log
mark full; pack
timeout 200 python3 -m pytest -q -p no:cacheprovider -rs tests/python/*_gpu.py > $R/pytest-gpu.log 2>&1; echo "rc=$?" >> $R/pytest-gpu.log
mark pytest-gpu; pack
OUT=$R/stress timeout 130 bash scripts/gpu_check.sh stress > $R/stress-run.log 2>&1; echo "rc=$?" >> $R/stress-run.log
mark stress; pack
GDN2_COMMIT=1cfa015 SANITIZE_TOOLS="memcheck synccheck" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 130 bash scripts/gpu_check.sh example sanitize > $R/san.log 2>&1; echo "rc=$?" >> $R/san.log
mark memsync; pack
L=$(( $(left) - 4 ))
CASES=$(cat tools_tmp/s/fusedcases.txt)
[ $L -gt 30 ] && { GDN2_COMMIT=1cfa015 SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS=racecheck SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/race SANITIZE_TIMEOUT=$L timeout $(( L + 3 )) bash scripts/gpu_check.sh sanitize > $R/race.log 2>&1; echo "rc=$?" >> $R/race.log; mark race; pack; }
cat $R/times.log; tail -n 3 $R/pytest-gpu.log; tail -n 5 $R/stress-run.log
grep -h "compute-sanitizer\|receipt" $R/san.log $R/race.log 2>/dev/null
grep -c PASS $R/race/sanitizer-racecheck-gdn2_sanitize_matrix.log 2>/dev/null
grep '^| ' $R/full/results.md 2>/dev/null | cut -c1-150 | head -16
pack
