#!/bin/bash
# Call 2: kAuto's fused estimates refitted (m = main + the refit + the fused timeline's start-up
# marks, compiled out of this build) and two changes to the fused kernel's start-up: e1 = m + the
# TMA descriptors' prefetch at the kernel's first instruction; e2 = e1 + the first two blocks'
# copies requested before the check of cu_seqlens where the item is the CTA's own (one path, no
# longest-first order). Timelines (m, e2), a same-call A/B of the fused rows (m, e1, e2
# alternating, hint), m's full bench with and without the hint and its kAuto GPU tests, then e2's
# fused and bad-input tests and compute-sanitizer on the matrix.
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
mkdir -p build
use() { rm -f build/gdn2_*; cp $T/$1/bin/* build/ 2>/dev/null; cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in m e2; do
  use $V; timeout 40 ./build/gdn2_phase1_timeline S1-fused B8x2K-fused > $R/timeline-$V.log 2>&1; echo "rc=$?" >> $R/timeline-$V.log
done
mark timelines
for round in 1 2; do
  for V in m e1 e2; do
    use $V
    timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64-MIXED-MHA,B8x2K-MHA,B4x4K-MHA --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
use m
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
L=$(cap 300 90); [ $L -gt 30 ] && { timeout $L python3 -m pytest tests/python/test_forward_gpu.py -q -rs -p no:cacheprovider -k "auto or max_seqlen or graph_replays" > $R/pytest-auto-m.log 2>&1; echo "rc=$?" >> $R/pytest-auto-m.log; mark pytest-auto-m; }
use e2
L=$(cap 420 120); [ $L -gt 30 ] && { timeout $L python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider -k "fused or one_launch or canonical or harmless or inconsistent or auto" > $R/pytest-e2.log 2>&1; echo "rc=$?" >> $R/pytest-e2.log; mark pytest-e2; }
L=$(cap 540 110); [ $L -gt 30 ] && { SANITIZE_PROGRAMS="gdn2_sanitize_matrix gdn2_example" SANITIZE_TOOLS="memcheck racecheck synccheck initcheck" OUT=$R/san-e2 SANITIZE_TIMEOUT=60 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-e2.log 2>&1; echo "rc=$?" >> $R/sanitize-e2.log; pkill -f compute-sanitizer 2>/dev/null; mark sanitize-e2; }
grep -h 'start-up\|CTA duration' $R/timeline-*.log; tail -1 $R/pytest-auto-m.log $R/pytest-e2.log; grep -h 'compute-sanitizer' $R/sanitize-e2.log; cat $R/times.log
