#!/bin/bash
# Call 2: the bad-input tests (in place is now allowed; partial overlaps and bad indices refused),
# the engine benchmark, and the canonical and scale rows on the branch and on main (9c5af1f: its
# own Python package and op library), alternating, two rounds, same call.
# Carry tools_tmp/P.tgz; command `tar xzf tools_tmp/P.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/r2; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
P=$PWD/tools_tmp/P; M=$PWD/tools_tmp/L
mkdir -p /tmp/branch-py && cp python/gdn2/*.py /tmp/branch-py/
use() {  # use <build dir> <python sources>
  cp $1/python/gdn2/*.so python/gdn2/; cp $2/*.py python/gdn2/; mkdir -p build; cp $1/bin/* build/; }
use $P /tmp/branch-py
L=$(cap 60 60); timeout $L python3 -m pytest tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider > $R/pytest-bad-input.log 2>&1; echo "rc=$?" >> $R/pytest-bad-input.log; mark pytest-bad-input
L=$(cap 130 70); timeout $L python3 bench/state_pool.py --out $R/state-pool > $R/state-pool.log 2>&1; echo "rc=$?" >> $R/state-pool.log; mark state-pool
for round in 1 2; do
  use $P /tmp/branch-py
  L=$(cap $((130 + 90 * round)) 40); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-branch-$round > $R/bench-branch-$round.log 2>&1; echo "rc=$?" >> $R/bench-branch-$round.log; mark bench-branch-$round
  use $M $M/python/gdn2
  L=$(cap $((175 + 90 * round)) 40); timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-main-$round > $R/bench-main-$round.log 2>&1; echo "rc=$?" >> $R/bench-main-$round.log; mark bench-main-$round
done
use $P /tmp/branch-py
tail -n 3 $R/pytest-bad-input.log; cat $R/state-pool/state_pool.md 2>/dev/null || tail -5 $R/state-pool.log
for f in branch-1 main-1 branch-2 main-2; do echo "== $f"; python3 -c "
import json,sys; d=json.load(open('$R/bench-$f/results.json'))
print(' '.join(f\"{r['row']}:{r.get('graph_us',float('nan')):.1f}\" for r in d['rows']))"; done
cat $R/gpu.txt $R/times.log
