#!/bin/bash
# Call 5: main with the GVA pair landed (4db158f, built on the CPU as tools_tmp/L: the op library,
# gdn2._eager, the example, the sanitizer matrix, the host timing). Every GPU test; the example;
# the host timing; every row with the hint and without it; the S3 probe (bench/probe_mixed_forms.py);
# the stress run; the four sanitizers over the example and the whole matrix (last, in the time left).
# Carry tools_tmp/L.tgz; command `tar xzf tools_tmp/L.tgz -C tools_tmp && bash <this script>`.
set -u
R=$OUT/r5; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp/L
t0=$(date +%s)
pack() { tar czf $OUT/r5.tgz.tmp -C $OUT r5 && mv $OUT/r5.tgz.tmp $OUT/r5.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
cp $T/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/bin/* build/
L=$(cap 120 110); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
timeout 40 ./build/gdn2_host_timing > $R/host_timing.log 2>&1; echo "rc=$?" >> $R/host_timing.log; mark example-host
L=$(cap 200 45); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
L=$(cap 250 45); timeout $L python3 bench/bench.py --no-fla --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
L=$(cap 290 40); PYTHONPATH=python timeout $L python3 bench/probe_mixed_forms.py --out $R/probe > $R/probe.log 2>&1; echo "rc=$?" >> $R/probe.log; mark probe
L=$(cap 315 25); PYTHONPATH=python timeout $L python3 tests/stress/stress.py --launches 20000 --graph-replays 2000 --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress
L=$(cap 585 270); SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" SANITIZE_TOOLS="memcheck initcheck synccheck racecheck" OUT=$R/san SANITIZE_TIMEOUT=150 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
tail -n 3 $R/pytest.log; tail -n 2 $R/example.log; head -n 8 $R/host_timing.log; cat $R/probe.log | tail -40; tail -n 2 $R/stress.log
grep -h "compute-sanitizer\|ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize.log | tail -12; cat $R/gpu.txt $R/times.log
