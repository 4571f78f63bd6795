#!/bin/bash
# Call 1 (state pools: initial_state_indices / final_state_indices, in place): the branch built on
# the CPU as tools_tmp/P, main (9c5af1f's kernels) as tools_tmp/L. The pool tests first, the pool
# cases of the sanitizer matrix under the four tools, the engine benchmark (bench/state_pool.py),
# every other GPU test, the canonical and scale rows on both builds (same call), memcheck over the
# whole matrix. Carry tools_tmp/P.tgz; command `tar xzf tools_tmp/P.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/r1; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar czf $OUT/r1.tgz.tmp -C $OUT r1 && mv $OUT/r1.tgz.tmp $OUT/r1.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
use() { cp $1/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
P=$PWD/tools_tmp/P; M=$PWD/tools_tmp/L
use $P
L=$(cap 100 100); timeout $L python3 -m pytest tests/python/test_state_pool_gpu.py -q -rs -p no:cacheprovider > $R/pytest-pool.log 2>&1; echo "rc=$?" >> $R/pytest-pool.log; mark pytest-pool
POOL=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep pool | tr '\n' ',' | sed 's/,$//')
L=$(cap 220 110); SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck initcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$POOL" OUT=$R/san-pool SANITIZE_TIMEOUT=60 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-pool.log 2>&1; echo "rc=$?" >> $R/sanitize-pool.log; pkill -f compute-sanitizer; mark sanitize-pool
L=$(cap 280 60); timeout $L python3 bench/state_pool.py --out $R/state-pool > $R/state-pool.log 2>&1; echo "rc=$?" >> $R/state-pool.log; mark state-pool
L=$(cap 380 100); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py --ignore tests/python/test_state_pool_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 420 35); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-branch > $R/bench-branch.log 2>&1; echo "rc=$?" >> $R/bench-branch.log; mark bench-branch
use $M
L=$(cap 460 35); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-main > $R/bench-main.log 2>&1; echo "rc=$?" >> $R/bench-main.log; mark bench-main
use $P
L=$(cap 560 90); SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" SANITIZE_TOOLS="memcheck" OUT=$R/san-all SANITIZE_TIMEOUT=85 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-all.log 2>&1; echo "rc=$?" >> $R/sanitize-all.log; pkill -f compute-sanitizer; mark sanitize-all
tail -n 4 $R/pytest-pool.log; tail -n 3 $R/pytest.log; tail -n 2 $R/example.log
grep -h "compute-sanitizer\|FAIL" $R/sanitize-pool.log $R/sanitize-all.log | tail -12
cat $R/state-pool/state_pool.md 2>/dev/null || tail -5 $R/state-pool.log
for b in branch main; do echo "== $b"; cut -d'|' -f2,7,8 $R/bench-$b/results.md 2>/dev/null | head -16; done
cat $R/gpu.txt $R/times.log
