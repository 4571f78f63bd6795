#!/bin/bash
# Call 1: the 128-channel fused form on persistent CTAs (src/kernels/fused_v128_persistent.cu).
# Builds: base = main de9ad09 (a3aac4c's kernels), new = branch `persistent`, each with its own
# Python package and binaries (tools_tmp/<b>).
#   1. new: the GPU tests of the fused path (the persistent form's bitwise test, longest first,
#      many sequences, pair forms, canonical rows, kAuto's choice), the state pools' fused cases,
#      the bad cu_seqlens on many sequences;
#   2. A/B, two rounds, graph us with the hint: N64-MIXED-MHA and S3 (persistent in new),
#      B8x2K-MHA (one round: the same kernel in both), N64-MIXED-GVA2 (the GVA pair: the same);
#   3. A/B, fused forced: the crossover's batches of many short sequences (persistent in new);
#   4. new: memcheck, racecheck, synccheck over the persistent cases of the sanitizer matrix.
# Carry tools_tmp/ab.tgz; command `tar xzf tools_tmp/ab.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c1; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
pack() { tar czf $OUT/c1.tgz -C $OUT c1; }
use new
timeout 150 python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py tests/python/test_bad_input_gpu.py \
  -q -x -p no:cacheprovider \
  -k "persistent or longest_first or fused or many_sequences or canonical or on_the_device or max_seqlen or index_past" > $R/pytest-new.log 2>&1
echo "rc=$?" >> $R/pytest-new.log; mark pytest-new; tail -n 5 $R/pytest-new.log; pack
ROWS=N64-MIXED-MHA,S3-MHA-PACKED-T4096,B8x2K-MHA,N64-MIXED-GVA2
SHAPES=64x8-hv16,64x32-hv16,16x128-hv16,128x1-hv16,2048x1-hv16,64x4-hv16-h0,128x1-hv32-h0
for round in 1 2; do
  for b in base new; do
    use $b
    timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows $ROWS --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1; echo "rc=$?" >> $R/bench-$b-$round.log
    mark bench-$b-$round
  done
done
for b in base new; do
  use $b
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes $SHAPES --out $R/cross-$b > $R/cross-$b.log 2>&1; echo "rc=$?" >> $R/cross-$b.log
  mark cross-$b
done
python3 - > $R/ab-table.md <<'PY'
import json, statistics, os
R = os.environ["OUT"] + "/c1"
def rows(b):
    out = []
    for i in (1, 2):
        f = f"{R}/bench-{b}-{i}/results.json"
        if os.path.exists(f): out.append({r["row"]: r["graph_us"] for r in json.load(open(f))["rows"]})
    return out
print("| row | base (graph us, 2 rounds) | new | new/base (medians) |")
print("|---|---|---|---|")
b, n = rows("base"), rows("new")
if b and n:
    for row in b[0]:
        xb = [r[row] for r in b if row in r]; xn = [r[row] for r in n if row in r]
        if not xb or not xn: continue
        print(f"| {row} | {' '.join(f'{x:.1f}' for x in xb)} | {' '.join(f'{x:.1f}' for x in xn)} | "
              f"{statistics.median(xn) / statistics.median(xb):.3f} |")
def cross(b):
    f = f"{R}/cross-{b}/crossover.json"
    return {r["name"]: r for r in json.load(open(f))["rows"]} if os.path.exists(f) else {}
cb, cn = cross("base"), cross("new")
print("\n| shape (fused forced) | base (graph us) | new | new/base |")
print("|---|---|---|---|")
for name, rb in cb.items():
    if name in cn:
        xb, xn = rb.get("fused_us") or rb.get("fused"), cn[name].get("fused_us") or cn[name].get("fused")
        print(f"| {name} | {xb} | {xn} | {xn / xb:.3f} |" if isinstance(xb, (int, float)) and isinstance(xn, (int, float)) else f"| {name} | {rb} | {cn[name]} | |")
PY
cat $R/ab-table.md; pack
use new
MX=fused-persistent-1x200,fused-persistent-long-60,fused-v128-many-mha-rand70,fused-v128-strong-rand70,fault-cu-fused-v128-many,fused-persistent-mha-rand70-pool,fused-persistent-mha-rand70-pool-bad-index,fused-persistent-mha-rand70-pool-bf16
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout 100 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "compute-sanitizer\|ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize.log $R/san/*.log 2>/dev/null | sort | uniq -c | head -20; cat $R/gpu.txt $R/times.log; pack
