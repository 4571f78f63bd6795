#!/bin/bash
# Call 11: sf3 (branch fused-split-v128 at 11f8ae2: the slot split, full/solved, for two consumers
# only; one consumer waits on one barrier for both parts as on main, since sf2 still cost
# B4x4K-MHA +0.8% in call 10) against v (main) and sf2: outputs bit for bit, an A/B of every row
# (two rounds, hint). Then sf3's validation: the example; racecheck and synccheck on the matrix's
# fused cases, memcheck and initcheck on the whole matrix; the whole pytest suite; the benchmark
# with the fp64 accuracy check, with and without the hint (the README's table); the stress run.
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
for V in v sf3; do
  use $V; PYTHONPATH=python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-v.pt $R/dump-sf3.pt > $R/compare-sf3.log 2>&1; echo "rc=$?" >> $R/compare-sf3.log
rm -f $R/dump-*.pt; mark bitwise
for round in 1 2; do
  for V in v sf2 sf3; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
mkdir -p build; cp $T/sf3/bin/* build/; use sf3
export GDN2_COMMIT=$(cat $T/sf3/commit)
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log; mark example
FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
L=$(cap 250 80); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-fused SANITIZE_TIMEOUT=60 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; mark san-fused
L=$(cap 300 80); SANITIZE_TOOLS="memcheck initcheck" OUT=$R/san-all SANITIZE_TIMEOUT=45 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-all.log 2>&1; echo "rc=$?" >> $R/sanitize-all.log; pkill -f compute-sanitizer; mark san-all
L=$(cap 420 150); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
L=$(cap 470 45); [ $L -gt 20 ] && { timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint; }
L=$(cap 515 45); [ $L -gt 20 ] && { timeout $L python3 bench/bench.py --no-fla --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench; }
L=$(left 585); [ $L -gt 30 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
tail -n 1 $R/compare-sf3.log; grep -h "compute-sanitizer" $R/sanitize-*.log; tail -n 2 $R/example.log; tail -n 3 $R/pytest.log; tail -n 1 $R/bench-hint.log $R/bench.log; tail -n 2 $R/stress.log; cat $R/gpu.txt $R/times.log
