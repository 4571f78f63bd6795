#!/bin/bash
# Call 1: both fused forms in one call (src/kernels/fused_mixed.cu). Builds: base = main a3aac4c,
# new = the mixed call (branch `mixed`), each with its own Python package and binaries.
#   1. new: the GPU tests of the fused path (mixed, longest first, pair, GVA pair, canonical rows,
#      kAuto's choice on the device, the hint);
#   2. A/B, two rounds, graph us with the hint: S3 (one sequence in the pair form), N64-MIXED-MHA
#      (the mixed call, no pair form), B8x2K-MHA (one wave: the plain 128-channel kernel, its SASS
#      as main's), and S3 without the hint (kAuto's choice on the device);
#   3. new: memcheck, racecheck, synccheck over the mixed cases of the sanitizer matrix;
#   4. new: the whole table with the hint (accuracy on).
# Carry tools_tmp/mixed.tgz; command `tar xzf tools_tmp/mixed.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c1; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
pack() { tar czf $OUT/c1.tgz -C $OUT c1; }
use new
timeout 90 python3 -m pytest tests/python/test_forward_gpu.py -q -x -p no:cacheprovider \
  -k "mixed or longest_first or fused_pair or gva_pair or canonical or many_sequences or on_the_device or max_seqlen" > $R/pytest-new.log 2>&1
echo "rc=$?" >> $R/pytest-new.log; mark pytest-new; tail -n 3 $R/pytest-new.log; pack
ROWS=S3-MHA-PACKED-T4096,N64-MIXED-MHA,B8x2K-MHA
for round in 1 2; do
  for b in base new; do
    use $b
    timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows $ROWS --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1; echo "rc=$?" >> $R/bench-$b-$round.log
    timeout 20 python3 bench/bench.py --no-fla --no-accuracy --rows S3 --out $R/nohint-$b-$round > $R/nohint-$b-$round.log 2>&1; echo "rc=$?" >> $R/nohint-$b-$round.log
    mark bench-$b-$round
  done
done
python3 - > $R/ab-table.md <<'PY'
import json, statistics, os
R = os.environ["OUT"] + "/c1"
def rows(prefix, b):
    out = []
    for i in (1, 2):
        f = f"{R}/{prefix}-{b}-{i}/results.json"
        if os.path.exists(f): out.append({r["row"]: r["graph_us"] for r in json.load(open(f))["rows"]})
    return out
print("| row | base (graph us, 2 rounds) | new | new/base (medians) |")
print("|---|---|---|---|")
for prefix, tag in (("bench", "hint"), ("nohint", "no hint")):
    b, n = rows(prefix, "base"), rows(prefix, "new")
    if not b or not n: continue
    for row in b[0]:
        xb = [r[row] for r in b if row in r]; xn = [r[row] for r in n if row in r]
        if not xb or not xn: continue
        print(f"| {row} ({tag}) | {' '.join(f'{x:.1f}' for x in xb)} | {' '.join(f'{x:.1f}' for x in xn)} | "
              f"{statistics.median(xn) / statistics.median(xb):.3f} |")
PY
cat $R/ab-table.md; pack
use new
MX=fused-mixed-600+19x16,fused-mixed-strong-600+19x16,fused-mixed-600+19x16-pool-bad-index,fault-cu-fused-v128-many,fused-v128-longest-first-hv72,fused-mixed-600+19x16-pool,fused-mixed-600+19x16-pool-bf16,fused-v128-many-mha-rand70
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=30 timeout 70 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "compute-sanitizer\|ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize.log $R/san/*.log 2>/dev/null | sort | uniq -c | head -20; pack
left=$(( 280 - ($(date +%s) - t0) )); [ $left -gt 20 ] || left=20
timeout $left python3 bench/bench.py --no-fla --max-seqlen --out $R/full-new-hint > $R/full-new-hint.log 2>&1; echo "rc=$?" >> $R/full-new-hint.log; mark full-new-hint
tail -n 25 $R/full-new-hint.log; cat $R/gpu.txt $R/times.log; pack
