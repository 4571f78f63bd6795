#!/bin/bash
# Call 1 (bf16 states and pools; the slot checks of validate_values; the state pools' call 2, never
# run, folded in): the branch built on the CPU as tools_tmp/P, main before state pools (9c5af1f) as
# tools_tmp/L with its own Python package. The pool, bad-input and FLA-compat tests, the rest of the
# GPU tests, memcheck on the pool cases (fp32 and bf16), the validate cost, the engine
# benchmark (fp32 and bf16 pools), the example, then the canonical and scale rows on the branch and
# on 9c5af1f, one round each (the branch's with the fp64 accuracy check); cut to fit 380 s. Carry tools_tmp/P.tgz; command
# `tar xzf tools_tmp/P.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/r1; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; [ $l -lt 5 ] && l=5; echo $l; }  # never 0: `timeout 0` has no limit
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
P=$PWD/tools_tmp/P; M=$PWD/tools_tmp/L
mkdir -p /tmp/branch-py && cp python/gdn2/*.py /tmp/branch-py/
use() {  # use <build dir> <python sources>
  cp $1/python/gdn2/*.so python/gdn2/; cp $2/*.py python/gdn2/; mkdir -p build; cp $1/bin/* build/; }
use $P /tmp/branch-py
FIRST="tests/python/test_state_pool_gpu.py tests/python/test_bad_input_gpu.py tests/python/test_fla_compat_gpu.py"
L=$(cap 80 80); timeout $L python3 -m pytest $FIRST -q -rs -p no:cacheprovider > $R/pytest-pool.log 2>&1; echo "rc=$?" >> $R/pytest-pool.log; mark pytest-pool
IGN=$(for f in $FIRST; do echo -n " --ignore $f"; done)
L=$(cap 190 110); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py $IGN > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
POOL=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep pool | tr '\n' ',' | sed 's/,$//')
L=$(cap 240 50); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck" SANITIZE_MATRIX_ARGS="--only=$POOL" OUT=$R/san-pool SANITIZE_TIMEOUT=60 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-pool.log 2>&1; echo "rc=$?" >> $R/sanitize-pool.log; pkill -f compute-sanitizer; mark sanitize-pool
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 265 25); timeout $L python3 bench/validate_cost.py --calls 5 --out $R/validate-cost > $R/validate-cost.log 2>&1; echo "rc=$?" >> $R/validate-cost.log; mark validate-cost
L=$(cap 290 25); timeout $L python3 bench/state_pool.py --out $R/state-pool > $R/state-pool.log 2>&1; echo "rc=$?" >> $R/state-pool.log; mark state-pool
L=$(cap 315 25); timeout $L python3 bench/state_pool.py --dtype bfloat16 --out $R/state-pool-bf16 > $R/state-pool-bf16.log 2>&1; echo "rc=$?" >> $R/state-pool-bf16.log; mark state-pool-bf16
for round in 1; do
  use $P /tmp/branch-py
  ACC=$([ $round = 2 ] && echo --no-accuracy)  # round 1: with the fp64 accuracy check
  L=$(cap 345 30); timeout $L python3 bench/bench.py --no-fla $ACC --max-seqlen --out $R/bench-branch-$round > $R/bench-branch-$round.log 2>&1; echo "rc=$?" >> $R/bench-branch-$round.log; mark bench-branch-$round
  use $M $M/python/gdn2
  L=$(cap 370 25); timeout $L python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-main-$round > $R/bench-main-$round.log 2>&1; echo "rc=$?" >> $R/bench-main-$round.log; mark bench-main-$round
done
use $P /tmp/branch-py
tail -n 3 $R/pytest-pool.log $R/pytest.log $R/example.log; cat $R/validate-cost.log; grep -h "compute-sanitizer\|FAIL\|ERROR SUMMARY" $R/sanitize-pool.log | tail -6
cat $R/state-pool/state_pool.md $R/state-pool-bf16/state_pool.md 2>/dev/null || tail -5 $R/state-pool.log $R/state-pool-bf16.log
for f in branch-1 main-1; do echo "== $f"; python3 -c "
import json,sys; d=json.load(open('$R/bench-$f/results.json'))
print(' '.join(f\"{r['row']}:{r.get('graph_us',float('nan')):.1f}\" for r in d['rows']))"; done
cat $R/gpu.txt $R/times.log
