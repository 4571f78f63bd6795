#!/bin/bash
# Call 3 (session of 2026-12-05 from 14:53). x3 = main 3f385b9 + exact-columns-x3.patch: the fused
# path's exact A and P without reductions inside a column's chain (a lane per column and channel
# part, 16 row sums each, one reduce-scatter at the end). p3 = call 2's build, whose kernels are
# main 3f385b9's (the same SASS). Order: x3's fused correctness first, then timings (exact probe,
# bench with the hint, the fused timeline), then the rest of x3's validation as time allows.
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
(git log --oneline -1; git status --short; for b in p3 x3; do echo "$b: $(head -2 $T/$b/commit | tr '\n' ' ')"; done; md5sum $T/{p3,x3}/python/gdn2/*.so) > $R/tree.txt
mkdir -p build
use() { cp $T/$1/bin/* build/; cp $T/$1/python/gdn2/*.so python/gdn2/; }
use x3
timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -rs -p no:cacheprovider -x -k "decays or one_launch or fused or erase or far or canonical" > $R/pytest-fused-x3.log 2>&1; echo "rc=$?" >> $R/pytest-fused-x3.log; mark pytest-fused-x3
PROBE=bench/results/2026-12-05-nvidia-h100-chain/exact_probe.py
for V in p3 x3; do
  use $V
  timeout 60 python3 $PROBE /tmp/save-$V $([ $V = x3 ] && echo /tmp/save-p3) > $R/probe-$V.log 2>&1; echo "rc=$?" >> $R/probe-$V.log
  cp /tmp/save-$V/exact_probe.json $R/exact-$V.json 2>/dev/null; mark probe-$V
done
for V in p3 x3; do
  use $V
  timeout 50 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint-$V > $R/bench-hint-$V.log 2>&1; echo "rc=$?" >> $R/bench-hint-$V.log; mark bench-$V
done
use x3
timeout 40 ./build/gdn2_phase1_timeline B8x2K-fused 64x256-fused > $R/fused-timeline-x3.log 2>&1; echo "rc=$?" >> $R/fused-timeline-x3.log; mark timeline-x3
L=$(cap 230 100); [ $L -gt 30 ] && { SANITIZE_PROGRAMS="gdn2_sanitize_matrix" OUT=$R/san SANITIZE_TIMEOUT=90 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; mark sanitize; }
L=$(cap 355 120); [ $L -gt 40 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py::test_wheel_builds_installs_and_runs > $R/pytest-x3.log 2>&1; echo "rc=$?" >> $R/pytest-x3.log; mark pytest-x3; }
tail -1 $R/pytest-fused-x3.log; tail -2 $R/pytest-x3.log; cat $R/probe-x3.log | cut -c1-200; grep -h 'compute-sanitizer' $R/sanitize.log; cat $R/times.log
