#!/bin/bash
# Call 2 (the same warm machine as call 1): the branch (tools_tmp/P) against 9c5af1f (tools_tmp/L,
# its own Python package), four rounds alternating, every row, no accuracy check; then racecheck and
# synccheck on the bf16 pool cases. Command as call 1's.
set -u
R=$OUT/r2; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
pack() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
P=$PWD/tools_tmp/P; M=$PWD/tools_tmp/L
mkdir -p /tmp/branch-py && cp python/gdn2/*.py /tmp/branch-py/
use() {  # use <build dir> <python sources>
  cp $1/python/gdn2/*.so python/gdn2/; cp $2/*.py python/gdn2/; mkdir -p build; cp $1/bin/* build/; }
for round in 1 2 3 4; do
  use $P /tmp/branch-py
  timeout 25 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-branch-$round > $R/bench-branch-$round.log 2>&1; echo "rc=$?" >> $R/bench-branch-$round.log; mark bench-branch-$round
  use $M $M/python/gdn2
  timeout 25 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-main-$round > $R/bench-main-$round.log 2>&1; echo "rc=$?" >> $R/bench-main-$round.log; mark bench-main-$round
done
use $P /tmp/branch-py
BF=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep pool-bf16 | tr '\n' ',' | sed 's/,$//')
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck initcheck" SANITIZE_MATRIX_ARGS="--only=$BF" OUT=$R/san-bf16 SANITIZE_TIMEOUT=40 timeout 100 bash scripts/gpu_check.sh sanitize > $R/sanitize-bf16.log 2>&1; echo "rc=$?" >> $R/sanitize-bf16.log; pkill -f compute-sanitizer; mark sanitize-bf16
grep -h "compute-sanitizer\|ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize-bf16.log | tail -6
python3 - <<'PY'
import json, statistics, os
R = os.environ["OUT"] + "/r2"
runs = {v: [json.load(open(f"{R}/bench-{v}-{i}/results.json"))["rows"] for i in (1, 2, 3, 4)
            if os.path.exists(f"{R}/bench-{v}-{i}/results.json")] for v in ("branch", "main")}
print("| row | branch, graph us (4 runs) | 9c5af1f | branch / 9c5af1f (medians) |")
print("|---|---|---|---|")
for j, r in enumerate(runs["branch"][0]):
    b = [x[j]["graph_us"] for x in runs["branch"]]; m = [x[j]["graph_us"] for x in runs["main"]]
    print(f"| {r['row']} | {' '.join(f'{x:.1f}' for x in b)} | {' '.join(f'{x:.1f}' for x in m)} | "
          f"{statistics.median(b) / statistics.median(m):.3f} |")
PY
cat $R/times.log
