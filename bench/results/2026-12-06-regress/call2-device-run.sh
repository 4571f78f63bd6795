#!/bin/bash
# Call 2: the kept build K (9f09639: the 128-channel form as R2, the pair forms as P) checked in
# full: one more A/B round against 9c5af1f (L) on the fused rows, the whole table with and without
# the hint (with the fp64 accuracy check), every GPU test, memcheck over the example and the whole
# variant matrix, racecheck and synccheck over its fused cases (cut to end by about 290 s). Everything under $OUT/c2, packed into $OUT/c2.tgz after
# each step (at most 8 files come back). Carry tools_tmp/C2.tgz; command
# `tar xzf tools_tmp/C2.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c2; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar czf $OUT/c2.tgz.tmp -C $OUT c2 && mv $OUT/c2.tgz.tmp $OUT/c2.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; [ $l -lt 5 ] && l=5; echo $l; }  # never 0: `timeout 0` has no limit
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp tools_tmp/$1/python/gdn2/*.so python/gdn2/; cp tools_tmp/$1/python/gdn2/*.py python/gdn2/; }
ROWS=S1-MHA-T64,S3-MHA-PACKED-T4096,N64-MIXED-MHA,N64-MIXED-GVA2,B8x2K-MHA,B4x4K-MHA,B8x2K-GVA2
for round in 1; do
  for b in L K; do
    use $b; L=$(cap 30 15); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows $ROWS --out $R/ab-$b-$round > $R/ab-$b-$round.log 2>&1; echo "rc=$?" >> $R/ab-$b-$round.log; mark ab-$b-$round
  done
done
use K; mkdir -p build && cp tools_tmp/K/bin/* build/
L=$(cap 60 30); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint
L=$(cap 75 30); timeout $L python3 bench/bench.py --no-fla --out $R/full-nohint > $R/full-nohint.log 2>&1; echo "rc=$?" >> $R/full-nohint.log; mark full-nohint
L=$(cap 180 105); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
L=$(cap 20 20); timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 240 60); SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" SANITIZE_TOOLS=memcheck OUT=$R/san-mem SANITIZE_TIMEOUT=60 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-mem.log 2>&1; echo "rc=$?" >> $R/sanitize-mem.log; pkill -f compute-sanitizer; sleep 1; mark sanitize-mem
FU=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep fused | grep -v bad-index | tr '\n' ',' | sed 's/,$//')
L=$(cap 290 50); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$FU" OUT=$R/san-fused SANITIZE_TIMEOUT=30 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-fused.log 2>&1; echo "rc=$?" >> $R/sanitize-fused.log; pkill -f compute-sanitizer; sleep 1; mark sanitize-fused
L=$(cap 295 90); [ $L -gt 30 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
python3 - <<'PY'
import json, statistics, os
R = os.environ["OUT"] + "/c2"; B = ["L", "K"]
runs = {b: [json.load(open(f"{R}/ab-{b}-{i}/results.json"))["rows"] for i in (1, 2)
            if os.path.exists(f"{R}/ab-{b}-{i}/results.json")] for b in B}
print("| row | L | K | K/L |"); print("|---|---|---|---|")
for j, r in enumerate(runs["L"][0]):
    med = {b: statistics.median(x[j]["graph_us"] for x in runs[b]) for b in B}
    cell = lambda b: " ".join(f"{x[j]['graph_us']:.1f}" for x in runs[b])
    print(f"| {r['row']} | {cell('L')} | {cell('K')} | {med['K']/med['L']:.3f} |")
PY
tail -n 3 $R/pytest.log $R/example.log; grep -h "compute-sanitizer" $R/sanitize-mem.log $R/sanitize-fused.log; tail -2 $R/stress.log
for f in full-hint full-nohint; do echo "== $f"; python3 -c "
import json; d=json.load(open('$R/$f/results.json'))
print(' '.join(f\"{r['row']}:{r.get('graph_us',float('nan')):.1f}\" for r in d['rows']))"; done
cat $R/gpu.txt $R/times.log; pack
