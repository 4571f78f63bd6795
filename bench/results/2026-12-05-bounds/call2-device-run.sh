#!/bin/bash
# Call 2 (session of 2026-12-05 from 19:07): m (the branch's base, main's kernels with kAuto's
# refit), d1 (the consumer decays its state while the first product runs), s2 (d1, and the pair
# form's Kend^T, D and w*v formed by the solvers' warps 2 and 3 instead of the producer).
# Outputs bit for bit; the role timelines of pm (main's probe, apply_probe_pair.py) and ps2
# (apply_probe_pair2.py); the one-wave rows forced onto the fused path, two rounds; then s2's
# validation: pytest, the example, the four sanitizers on the matrix's fused cases, the stress
# run; every row with the hint, m and s2, one round (s2 with the accuracy check).
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
for V in m d1 s2; do
  use $V; PYTHONPATH=python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
for V in d1 s2; do python3 bench/outputs_bitwise.py compare $R/dump-m.pt $R/dump-$V.pt > $R/compare-$V.log 2>&1; echo "rc=$?" >> $R/compare-$V.log; done
rm -f $R/dump-*.pt; mark bitwise
grep -q "^rc=0" $R/dump-s2.log || { echo "s2's dump failed: stop"; tail -5 $R/dump-s2.log; cat $R/times.log; exit 1; }
for V in pm ps2; do use $V; PYTHONPATH=python timeout 40 python3 bench/results/2026-12-05-pair/pair_timeline.py > $R/roles-$V.log 2>&1; echo "rc=$?" >> $R/roles-$V.log; done; mark roles
for round in 1 2; do
  for V in m d1 s2; do
    use $V
    L=$(cap 200 40); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,S4,S5,B4x4K-MHA --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
use s2; mkdir -p build; cp $T/s2/bin/* build/
L=$(cap 330 120); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
L=$(cap 400 70); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck memcheck initcheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-fused SANITIZE_TIMEOUT=40 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; mark sanitize
L=$(cap 430 30); PYTHONPATH=python timeout $L python3 tests/stress/stress.py --launches 20000 --graph-replays 2000 --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress
use m; L=$(cap 490 50); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-m-1 > $R/ab-m-1.log 2>&1; echo "rc=$?" >> $R/ab-m-1.log
use s2; L=$(cap 570 70); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint-s2 > $R/bench-hint-s2.log 2>&1; echo "rc=$?" >> $R/bench-hint-s2.log; mark ab
tail -n 1 $R/compare-*.log; cat $R/roles-*.log; tail -n 3 $R/pytest.log; tail -n 2 $R/example.log; grep -h "compute-sanitizer\|ERROR\|hazard" $R/sanitize-fused.log | tail -8; tail -n 2 $R/stress.log
for f in $R/fu-*/results.md; do echo $f; grep -E '^\| (S1|S2|S4|S5|B4x4K-MHA)' $f | cut -d'|' -f2,7; done
cat $R/gpu.txt $R/times.log
