#!/bin/bash
# Call 6: p5 (the pair form as it lands: p4 with the 128-channel form's code as on main, its SASS
# identical to main's) against sf3 (main's kernels): outputs bit for bit; the whole pytest suite;
# an A/B of every row through auto with the hint and of the one-wave rows forced onto the fused
# path; then p5's validation: the example, racecheck and synccheck on the sanitizer matrix's fused
# cases, memcheck and initcheck on them; the benchmark with the fp64 accuracy check (hint); the
# stress run if time is left.
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
for V in sf3 p5; do
  use $V; PYTHONPATH=python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-sf3.pt $R/dump-p5.pt > $R/compare-p5.log 2>&1; echo "rc=$?" >> $R/compare-p5.log
rm -f $R/dump-*.pt; mark bitwise
grep -q "^rc=0" $R/dump-p5.log || { echo "p5's dump failed: stop"; cat $R/times.log; exit 1; }
mkdir -p build; cp $T/p5/bin/* build/; use p5
L=$(cap 150 120); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
for V in sf3 p5; do
  use $V
  L=$(cap 200 30); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-1 > $R/ab-$V-1.log 2>&1; echo "rc=$?" >> $R/ab-$V-1.log
  L=$(cap 215 20); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,S4,S5,B4x4K-MHA --out $R/fu-$V-1 > $R/fu-$V-1.log 2>&1; echo "rc=$?" >> $R/fu-$V-1.log
done
mark ab
use p5; export GDN2_COMMIT=$(cat $T/p5/commit)
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
L=$(cap 280 60); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck memcheck initcheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-fused SANITIZE_TIMEOUT=40 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; mark sanitize
L=$(cap 315 35); [ $L -gt 20 ] && { timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint; }
L=$(left 330); [ $L -gt 20 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --launches 20000 --graph-replays 2000 --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
tail -n 1 $R/compare-p5.log; tail -n 3 $R/pytest.log; tail -n 2 $R/example.log; grep -h "compute-sanitizer\|ERROR\|hazard" $R/sanitize-fused.log | tail -8; tail -n 1 $R/bench-hint.log; tail -n 2 $R/stress.log; cat $R/gpu.txt $R/times.log
