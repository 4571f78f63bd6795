#!/bin/bash
# Call 2: base (main de9ad09), new (call 1's persistent form: the claim at the top of its block),
# new2 (the claim's round trip overlapping the block: issued at its start, published at its end).
#   1. A/B/B, two rounds, graph us: N64-MIXED-MHA and S3 with the hint; fused forced on the
#      crossover's short batches;
#   2. new2: every GPU test (pytest tests/python);
#   3. new2: the whole benchmark table with the hint (accuracy on);
#   4. new2: a shortened stress run (20,000 launches, 2,000 graph replays), as the call allows.
# Carry tools_tmp/ab.tgz; command `tar xzf tools_tmp/ab.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c2; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
pack() { tar czf $OUT/c2.tgz -C $OUT c2; }
SHAPES=64x8-hv16,128x1-hv16,64x4-hv16-h0,16x128-hv16,64x32-hv16
for round in 1 2; do
  for b in base new new2; do
    use $b
    timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows N64-MIXED-MHA,S3-MHA-PACKED-T4096 --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1; echo "rc=$?" >> $R/bench-$b-$round.log
    timeout 30 python3 bench/algorithm_crossover.py --algorithms fused --shapes $SHAPES --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1; echo "rc=$?" >> $R/cross-$b-$round.log
    mark ab-$b-$round
  done
done
python3 - > $R/ab-table.md <<'PY'
import json, statistics, os
R = os.environ["OUT"] + "/c2"
B = ("base", "new", "new2")
def load(kind, b, i):
    f = f"{R}/{kind}-{b}-{i}/" + ("results.json" if kind == "bench" else "crossover.json")
    if not os.path.exists(f): return {}
    d = json.load(open(f))["rows"]
    return {r["row"]: r["graph_us"] for r in d} if kind == "bench" else {r["name"]: r["fused_us"] for r in d}
for kind in ("bench", "cross"):
    t = {b: [load(kind, b, i) for i in (1, 2)] for b in B}
    names = list(t["base"][0])
    print(f"\n| {kind} row (graph us) | " + " | ".join(B) + " | new/base | new2/base |")
    print("|---|" + "---|" * (len(B) + 2))
    for n in names:
        xs = {b: [r[n] for r in t[b] if n in r] for b in B}
        if not all(xs.values()): continue
        med = {b: statistics.median(v) for b, v in xs.items()}
        print(f"| {n} | " + " | ".join(" ".join(f"{x:.1f}" for x in xs[b]) for b in B) +
              f" | {med['new'] / med['base']:.3f} | {med['new2'] / med['base']:.3f} |")
PY
cat $R/ab-table.md; pack
use new2
timeout 260 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 6 $R/pytest-all.log; pack
left=$(( 470 - ($(date +%s) - t0) )); [ $left -gt 30 ] || left=30
timeout $left python3 bench/bench.py --no-fla --max-seqlen --out $R/full-new2-hint > $R/full-new2-hint.log 2>&1; echo "rc=$?" >> $R/full-new2-hint.log; mark full
tail -n 22 $R/full-new2-hint.log; pack
left=$(( 540 - ($(date +%s) - t0) ))
if [ $left -gt 40 ]; then
  OUT=$R/stress STRESS_ARGS="--launches 20000 --graph-replays 2000" timeout $left bash scripts/gpu_check.sh stress > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress
  tail -n 5 $R/stress.log
fi
cat $R/gpu.txt $R/times.log; pack
