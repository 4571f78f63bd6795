#!/bin/bash
# Call 3: base (main de9ad09), new (call 1's persistent form: the next item claimed kClaimAhead
# blocks before the end of the current one), new3 (the claims kept kClaimAhead blocks ahead of
# the producer's block: several short items claimed at once).
#   1. A/B/B, two rounds, graph us: N64-MIXED-MHA and S3 with the hint; fused forced on the
#      crossover's short batches;
#   2. the pick (new3 if its geomean over those rows is at least 1% below new's, else new): every
#      GPU test, the persistent cases of the sanitizer matrix (memcheck, racecheck, synccheck),
#      the whole benchmark table with the hint, and the batch rows without it.
# Carry tools_tmp/ab.tgz; command `tar xzf tools_tmp/ab.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c3; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
pack() { tar czf $OUT/c3.tgz -C $OUT c3; }
SHAPES=64x8-hv16,128x1-hv16,64x4-hv16-h0,16x128-hv16,64x32-hv16,128x1-hv32-h0
for round in 1 2; do
  for b in base new new3; do
    use $b
    timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows N64-MIXED-MHA,S3-MHA-PACKED-T4096 --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1; echo "rc=$?" >> $R/bench-$b-$round.log
    timeout 30 python3 bench/algorithm_crossover.py --algorithms fused --shapes $SHAPES --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1; echo "rc=$?" >> $R/cross-$b-$round.log
    mark ab-$b-$round
  done
done
python3 - > $R/ab-table.md <<'PY'
import json, math, statistics, os
R = os.environ["OUT"] + "/c3"
B = ("base", "new", "new3")
def load(kind, b, i):
    f = f"{R}/{kind}-{b}-{i}/" + ("results.json" if kind == "bench" else "crossover.json")
    if not os.path.exists(f): return {}
    d = json.load(open(f))["rows"]
    return {r["row"]: r["graph_us"] for r in d} if kind == "bench" else {r["name"]: r["fused_us"] for r in d}
logs = []
for kind in ("bench", "cross"):
    t = {b: [load(kind, b, i) for i in (1, 2)] for b in B}
    names = list(t["base"][0])
    print(f"\n| {kind} row (graph us) | " + " | ".join(B) + " | new/base | new3/base | new3/new |")
    print("|---|" + "---|" * (len(B) + 3))
    for n in names:
        xs = {b: [r[n] for r in t[b] if n in r] for b in B}
        if not all(xs.values()): continue
        med = {b: statistics.median(v) for b, v in xs.items()}
        logs.append(math.log(med["new3"] / med["new"]))
        print(f"| {n} | " + " | ".join(" ".join(f"{x:.1f}" for x in xs[b]) for b in B) +
              f" | {med['new'] / med['base']:.3f} | {med['new3'] / med['base']:.3f} | {med['new3'] / med['new']:.3f} |")
g = math.exp(sum(logs) / len(logs)) if logs else 1.0
print(f"\ngeomean new3/new over {len(logs)} rows: {g:.4f}; pick: {'new3' if g <= 0.99 else 'new'}")
open(f"{R}/pick.txt", "w").write("new3" if g <= 0.99 else "new")
PY
cat $R/ab-table.md; pack
PICK=$(cat $R/pick.txt 2>/dev/null || echo new); use $PICK; echo "pick $PICK" >> $R/times.log
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 3 $R/pytest-all.log; pack
MX=fused-persistent-1x200,fused-persistent-long-60,fused-v128-many-mha-rand70,fused-v128-strong-rand70,fault-cu-fused-v128-many,fused-persistent-mha-rand70-pool,fused-persistent-mha-rand70-pool-bad-index,fused-persistent-mha-rand70-pool-bf16
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout 100 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "compute-sanitizer\|ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize.log 2>/dev/null | sort | uniq -c; pack
timeout 60 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint
tail -n 16 $R/full-hint.log; pack
left=$(( 530 - ($(date +%s) - t0) )); [ $left -gt 20 ] || left=20
timeout $left python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log; mark nohint
tail -n 10 $R/nohint.log; cat $R/gpu.txt $R/times.log; pack
