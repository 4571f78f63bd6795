#!/bin/bash
# Call 2 (session of 2026-12-05 from 14:53). m2 = main 03b4a71 (kAuto's device choice where a third
# path wins between the two ends' picks). p3 = m2 + pdl-choice-p3.patch: call 1's p1 (the device's
# choice behind one launch chain) without check_sequences, whose fused prologue made the mbarrier
# initialisation non-uniform (10 fences in the SASS instead of 1; S1 +0.6 us in call 1).
# bench.py without and with the hint, two rounds alternating; the choice's tests on both; then p3
# validated: full pytest, the example, compute-sanitizer on the example and the matrix, the stress run.
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
(git log --oneline -1; git status --short; for b in m2 p3; do echo "$b: $(head -2 $T/$b/commit | tr '\n' ' ')"; done; md5sum $T/{m2,p3}/python/gdn2/*.so) > $R/tree.txt
mkdir -p build
use() { cp $T/$1/bin/* build/; cp $T/$1/python/gdn2/*.so python/gdn2/; }
bench_round() {
  for V in m2 p3; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench-$V-$1 > $R/bench-$V-$1.log 2>&1; echo "rc=$?" >> $R/bench-$V-$1.log
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint-$V-$1 > $R/bench-hint-$V-$1.log 2>&1; echo "rc=$?" >> $R/bench-hint-$V-$1.log
    mark bench-$V-$1
  done
}
bench_round 1
for V in m2 p3; do
  use $V
  timeout 90 python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider -k "auto or device or graph or longest or inconsistent" > $R/pytest-choice-$V.log 2>&1; echo "rc=$?" >> $R/pytest-choice-$V.log; mark pytest-choice-$V
done
bench_round 2
use p3; md5sum python/gdn2/*.so build/gdn2_* > $R/validated-p3.md5
timeout 60 ./build/gdn2_phase1_timeline B8x2K-fused 64x256-fused > $R/fused-timeline.log 2>&1; echo "rc=$?" >> $R/fused-timeline.log; mark fused-timeline
L=$(cap 330 170); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --durations=10 > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 450 120); [ $L -gt 40 ] && { SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" OUT=$R/san SANITIZE_TIMEOUT=100 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; sleep 1; mark sanitize; }
L=$(cap 540 90); [ $L -gt 40 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
for V in m2 p3; do tail -1 $R/pytest-choice-$V.log; done; tail -2 $R/pytest.log; grep -h 'compute-sanitizer' $R/sanitize.log; tail -2 $R/stress.log; cat $R/times.log
