#!/bin/bash
# Call 7: main with the GVA pair only where the sequences have 128 tokens on average
# (kernel_params.h, fused_gva_pair), built on the CPU as tools_tmp/L. Every GPU test; the example;
# the four sanitizers on the matrix's fused cases; the short crossover (the pair's rule on short
# GVA batches); every row with the hint. Cut to about 240 s: the device budget was nearly spent.
# Carry tools_tmp/L.tgz; command `tar xzf tools_tmp/L.tgz -C tools_tmp && bash <this script>`.
set -u
R=$OUT/r7; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp/L
t0=$(date +%s)
pack() { tar czf $OUT/r7.tgz.tmp -C $OUT r7 && mv $OUT/r7.tgz.tmp $OUT/r7.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
cp $T/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/bin/* build/
L=$(cap 120 110); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
L=$(cap 160 45); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck memcheck initcheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-fused SANITIZE_TIMEOUT=80 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; mark sanitize
L=$(cap 200 40); timeout $L python3 bench/algorithm_crossover.py --set short --replays 20 --out $R/crossover-short > $R/crossover-short.log 2>&1; echo "rc=$?" >> $R/crossover-short.log; mark crossover-short
L=$(cap 240 35); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
tail -n 3 $R/pytest.log; tail -n 2 $R/example.log; grep -h "compute-sanitizer\|ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize-fused.log | tail -8
grep -E "hv32|hv64" $R/crossover-short/crossover.md; grep -E "GVA2" $R/bench-hint/results.md | cut -d'|' -f2,7,8; cat $R/gpu.txt $R/times.log
