#!/bin/bash
# For the next session with a device (not run): m (main's kernels) against t (main with
# gva-pair-tma.patch: the fused path's 128-channel form as a GVA pair where each key head has an
# even number of value heads, each CTA's v and w loaded into its slot by TMA). Before it, on the
# CPU: build main into tools_tmp/m/{python/gdn2/*.so, bin/{gdn2_example,gdn2_sanitize_matrix,
# gdn2_tf32_rounding}}; `git apply bench/results/2026-12-05-gva-pair/gva-pair-tma.patch`, build
# into tools_tmp/t the same way, and keep the patch applied (its tests, sanitizer-matrix cases and
# bench/outputs_bitwise.py's GVA cases run here); `cd tools_tmp && tar czf b.tgz m t`, carry
# tools_tmp/b.tgz, command `tar xzf tools_tmp/b.tgz -C tools_tmp && bash <this script>`.
# Outputs bit for bit; the GVA pair's tests; the GVA-2 rows at scale forced onto the fused path,
# two rounds; then, where t is bit for bit m's and its tests pass, its validation: pytest, the
# example, the four sanitizers on the matrix's fused cases, the stress run, and every row with the
# hint and the accuracy check. Call 3's gn bounds what t can gain: B8x2K-GVA2 -15%, B4x4K-GVA2
# -17%, N64-MIXED-GVA2 -8% against m.
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
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in m t; do
  use $V; PYTHONPATH=python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-m.pt $R/dump-t.pt > $R/compare-t.log 2>&1; echo "rc=$?" >> $R/compare-t.log
rm -f $R/dump-*.pt; mark bitwise
grep -q "^rc=0" $R/dump-t.log || { echo "t's dump failed: stop"; tail -5 $R/dump-t.log; cat $R/times.log; exit 1; }
use t; timeout 60 python3 -m pytest tests/python/test_forward_gpu.py -q -k gva_pair -p no:cacheprovider > $R/pytest-gva.log 2>&1; echo "rc=$?" >> $R/pytest-gva.log; mark pytest-gva
for round in 1 2; do
  for V in m t; do
    use $V
    L=$(cap 200 40); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S3,N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
for f in $R/fu-*/results.md; do echo $f; grep -E '^\| (S3|N64|B8x2K|B4x4K)' $f | cut -d'|' -f2,7; done
if grep -q "^rc=0" $R/compare-t.log && grep -q "^rc=0" $R/pytest-gva.log; then
  use t; mkdir -p build; cp $T/t/bin/* build/
  L=$(cap 300 110); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
  timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
  FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
  L=$(cap 420 110); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck memcheck initcheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-fused SANITIZE_TIMEOUT=90 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; mark sanitize
  L=$(cap 445 25); PYTHONPATH=python timeout $L python3 tests/stress/stress.py --launches 20000 --graph-replays 2000 --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress
  L=$(cap 500 50); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint-t > $R/bench-hint-t.log 2>&1; echo "rc=$?" >> $R/bench-hint-t.log; mark bench
  tail -n 3 $R/pytest.log; tail -n 2 $R/example.log; grep -h "compute-sanitizer\|ERROR\|hazard" $R/sanitize-fused.log | tail -8; tail -n 2 $R/stress.log
fi
tail -n 2 $R/compare-t.log $R/pytest-gva.log; cat $R/gpu.txt $R/times.log
