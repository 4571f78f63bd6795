#!/bin/bash
# Call 1 (session of 2026-12-05 from 14:53). p1 = main c07ff80 + pdl-choice.patch: kAuto's choice on
# the device behind one launch chain (the longer path's kernels launched behind the shorter one's,
# the work counter zeroed by the first kernel instead of a memset, the fused kernel's reads of
# cu_seqlens in one pass). m1 = main c07ff80 (the same estimates, without the patch).
# bench.py without and with the hint, two rounds alternating; the fused path's per-CTA timeline on
# three batch shapes; then p1 validated: full pytest, the example, compute-sanitizer on the
# example and the matrix, the stress run.
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
(git log --oneline -1; git status --short; for b in m1 p1; do echo "$b: $(head -2 $T/$b/commit | tr '\n' ' ')"; done; md5sum $T/{m1,p1}/python/gdn2/*.so) > $R/tree.txt
mkdir -p build
use() { cp $T/$1/bin/* build/; cp $T/$1/python/gdn2/*.so python/gdn2/; }
bench_round() {
  for V in m1 p1; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench-$V-$1 > $R/bench-$V-$1.log 2>&1; echo "rc=$?" >> $R/bench-$V-$1.log
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint-$V-$1 > $R/bench-hint-$V-$1.log 2>&1; echo "rc=$?" >> $R/bench-hint-$V-$1.log
    mark bench-$V-$1
  done
}
bench_round 1
# main's kernels on the choice's tests first (the recurrent/chunked cases added on 2026-12-05 never ran).
use m1; timeout 90 python3 -m pytest tests/python/test_forward_gpu.py -q -rs -p no:cacheprovider -k "auto or device" > $R/pytest-choice-m1.log 2>&1; echo "rc=$?" >> $R/pytest-choice-m1.log; mark pytest-choice-m1
use p1; md5sum python/gdn2/*.so build/gdn2_* > $R/validated-p1.md5
# What this change touches first (in case the call is cut short): the choice's tests and the
# inconsistent offsets' (the fused kernel's new check), the sanitizers on the matrix's cases of the
# choice, the fused path's CTAs on the SMs (an instrumented copy of the library:
# GDN2_PHASE1_TIMELINE); then a second bench round; then everything.
timeout 90 python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider -k "auto or device or graph or longest or inconsistent" > $R/pytest-choice.log 2>&1; echo "rc=$?" >> $R/pytest-choice.log; mark pytest-choice
SANITIZE_PROGRAMS="gdn2_sanitize_matrix" SANITIZE_MATRIX_ARGS="--only=auto-device-fused-40x75,auto-device-chunked-40" OUT=$R/san-choice SANITIZE_TIMEOUT=60 timeout 100 bash scripts/gpu_check.sh sanitize > $R/sanitize-choice.log 2>&1; echo "rc=$?" >> $R/sanitize-choice.log; pkill -f compute-sanitizer 2>/dev/null; mark sanitize-choice
timeout 60 ./build/gdn2_phase1_timeline B8x2K-fused B4x4K-fused 64x256-fused > $R/fused-timeline.log 2>&1; echo "rc=$?" >> $R/fused-timeline.log
mark fused-timeline
bench_round 2
use p1
L=$(cap 400 180); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --durations=10 > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 510 130); [ $L -gt 40 ] && { SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" OUT=$R/san SANITIZE_TIMEOUT=110 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; sleep 1; mark sanitize; }
L=$(cap 575 100); [ $L -gt 40 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
tail -1 $R/pytest-choice-m1.log; tail -1 $R/pytest-choice.log; tail -2 $R/pytest.log; grep -h 'compute-sanitizer' $R/sanitize-choice.log $R/sanitize.log; tail -1 $R/stress.log; cat $R/times.log
