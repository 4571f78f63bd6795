#!/bin/bash
# The segments mode (branch fused-segments = fused-lx2 + algorithm "segments"): build sg1.
# RUN WITH THE BRANCH fused-segments CHECKED OUT. ~590 s (each step capped; later ones skipped if short).
#  1. the new GPU tests (tests/python/test_segments_gpu.py) -x;
#  2. the sanitizers (memcheck, initcheck, synccheck, racecheck) on the matrix's segments cases;
#  3. bench/segments.py on S1, S2, S3: the probe (calls A and B) AND the kernel mode (direct
#     "segments" column), errors against the fp64 reference; gdn2_segment_sweep
#     (bench/segment_sweep.cu): runs / join / both by segment count, 7 shapes; segments.py on S5,
#     1x4096, L32K;
#  4. with the time left: bench.py --algorithm segments on S1, S2, S4, S5 (the README's protocol,
#     accuracy included), then the fused/one-launch pytest subset (the normal fused forms compile
#     to the same SASS as fused-lx2's, so this is only a guard).
# Carry: tools_tmp/c35 (sg1.tar.xz), tools_tmp/scripts.
set -u
B=${B:-sg1}
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
TB=$(ls $T/c3*/$B.tar.xz 2>/dev/null | head -1)
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
[ -n "$TB" ] || { echo "no build $B" > $R/FATAL; pack; exit 1; }
tar xJf $TB -C $T
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
git log --oneline -1 > $R/tree.txt; git status --short >> $R/tree.txt; echo "build $B: $(cat $T/$B/commit)" >> $R/tree.txt
mkdir -p build && cp $T/$B/bin/* build/ && cp $T/$B/python/gdn2/*.so python/gdn2/
md5sum python/gdn2/*.so >> $R/tree.txt
L=$(left 180); timeout $L python3 -m pytest tests/python/test_segments_gpu.py -q -x -rs -p no:cacheprovider > $R/pytest-seg.log 2>&1; echo "rc=$?" >> $R/pytest-seg.log
mark pytest-seg; tail -3 $R/pytest-seg.log
L=$(left 280); [ $L -gt 40 ] && { SANITIZE_PROGRAMS="gdn2_sanitize_matrix" SANITIZE_MATRIX_ARGS="--only=seg-mha-T1024,seg-mha-T300,seg-gva2-700+1+300,seg-mha-1x2048,seg-mha-32-one-long,fault-cu-seg,fault-cu-extreme-seg,fault-g-seg,fault-values-seg" OUT=$R/san SANITIZE_TIMEOUT=25 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; sleep 1; mark sanitize; tail -4 $R/sanitize.log; }
L=$(left 370); [ $L -gt 30 ] && { timeout $L python3 bench/segments.py --shapes S1-MHA-T64,S2-MHA-T1024,S3-MHA-PACKED-T4096 --out $R/seg-a > $R/seg-a.log 2>&1; echo "rc=$?" >> $R/seg-a.log; mark seg-a; tail -12 $R/seg-a.log; }
L=$(left 450); [ $L -gt 30 ] && { timeout $L ./build/gdn2_segment_sweep --replays 10 --json $R/segment_sweep.json > $R/segment_sweep.txt 2>&1; echo "rc=$?" >> $R/segment_sweep.txt; mark sweep; cat $R/segment_sweep.txt | head -60; }
L=$(left 520); [ $L -gt 30 ] && { timeout $L python3 bench/segments.py --shapes S5-GVA2-T1024,1x4096-hv16,L32K-MHA --out $R/seg-b > $R/seg-b.log 2>&1; echo "rc=$?" >> $R/seg-b.log; mark seg-b; tail -12 $R/seg-b.log; }
L=$(left 560); [ $L -gt 40 ] && { timeout $L python3 bench/bench.py --no-fla --algorithm segments --rows S1,S2,S4,S5 --out $R/bench-seg > $R/bench-seg.log 2>&1; echo "rc=$?" >> $R/bench-seg.log; mark bench-seg; tail -8 $R/bench-seg.log; }
L=$(left 590); [ $L -gt 40 ] && { timeout $L python3 -m pytest tests/python/test_forward_gpu.py -q -x -k "one_launch or fused" -p no:cacheprovider > $R/pytest-fused.log 2>&1; echo "rc=$?" >> $R/pytest-fused.log; mark pytest-fused; tail -2 $R/pytest-fused.log; }
cat $R/times.log
