#!/bin/bash
# Call 6: the landed build (v = 2361ab5, the kq2 kernels): the example; racecheck and synccheck on
# the matrix's fused cases, memcheck and initcheck on the whole matrix and the example; the whole
# pytest suite; the benchmark with the fp64 accuracy check (no FLA), hint and no hint.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
mkdir -p build; cp $T/v/bin/* build/; cp $T/v/python/gdn2/*.so python/gdn2/
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log; mark example
FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
echo "$FUSED" > $R/fused-cases.txt
L=$(cap 200 150); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-fused SANITIZE_TIMEOUT=70 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; mark san-fused
L=$(cap 300 100); SANITIZE_TOOLS="memcheck initcheck" OUT=$R/san-all SANITIZE_TIMEOUT=45 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-all.log 2>&1; echo "rc=$?" >> $R/sanitize-all.log; pkill -f compute-sanitizer; mark san-all
L=$(cap 540 230); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
L=$(cap 590 45); [ $L -gt 20 ] && { timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint; }
grep -h "compute-sanitizer" $R/sanitize-*.log; tail -n 2 $R/example.log; tail -n 3 $R/pytest.log; tail -n 1 $R/bench-hint.log; cat $R/times.log
