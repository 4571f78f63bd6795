#!/bin/bash
# Call 3 (session of 2026-12-05 from 19:07): m against s3 (the pair form's Kend^T and D formed by
# the solvers' warps 2 and 3 from the raw stage instead of by the producer; w*v stays with the
# producer; no consumer change). Outputs bit for bit; the role timeline of ps3
# (apply_probe_pair2.py); the one-wave rows forced onto the fused path, two rounds; where s3 is
# faster on B4x4K-MHA in both rounds, its validation: pytest, the example, the four sanitizers on
# the matrix's fused cases, the stress run, and every row with the hint (m, then s3 with the
# accuracy check).
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
for V in m s3; do
  use $V; PYTHONPATH=python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-m.pt $R/dump-s3.pt > $R/compare-s3.log 2>&1; echo "rc=$?" >> $R/compare-s3.log
rm -f $R/dump-*.pt; mark bitwise
grep -q "^rc=0" $R/dump-s3.log || { echo "s3's dump failed: stop"; tail -5 $R/dump-s3.log; cat $R/times.log; exit 1; }
use ps3; PYTHONPATH=python timeout 40 python3 bench/results/2026-12-05-pair/pair_timeline.py > $R/roles-ps3.log 2>&1; echo "rc=$?" >> $R/roles-ps3.log; mark roles
for round in 1 2; do
  for V in m s3; do
    use $V
    L=$(cap 200 40); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,S4,S5,B4x4K-MHA --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
for f in $R/fu-*/results.md; do echo $f; grep -E '^\| (S1|S2|S4|S5|B4x4K-MHA)' $f | cut -d'|' -f2,7; done
faster=$(python3 -c "
import json
g=lambda v,r:[x['graph_us'] for x in json.load(open('$R/fu-%s-%d/results.json'%(v,r)))['rows'] if x['row']=='B4x4K-MHA'][0]
print(int(all(g('s3',r)<g('m',r) for r in (1,2))))" 2>/dev/null)
echo "s3 faster on B4x4K-MHA: $faster" | tee $R/decision.txt
if [ "$faster" = 1 ]; then
  use s3; mkdir -p build; cp $T/s3/bin/* build/
  L=$(cap 300 120); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
  timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
  FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
  L=$(cap 420 120); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck memcheck initcheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-fused SANITIZE_TIMEOUT=100 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; mark sanitize
  L=$(cap 450 30); PYTHONPATH=python timeout $L python3 tests/stress/stress.py --launches 20000 --graph-replays 2000 --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress
  use m; L=$(cap 510 50); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-m-1 > $R/ab-m-1.log 2>&1; echo "rc=$?" >> $R/ab-m-1.log
  use s3; L=$(cap 580 70); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint-s3 > $R/bench-hint-s3.log 2>&1; echo "rc=$?" >> $R/bench-hint-s3.log; mark ab
  tail -n 3 $R/pytest.log; tail -n 2 $R/example.log; grep -h "compute-sanitizer\|ERROR\|hazard" $R/sanitize-fused.log | tail -8; tail -n 2 $R/stress.log
fi
tail -n 1 $R/compare-*.log; cat $R/roles-*.log; cat $R/gpu.txt $R/times.log
