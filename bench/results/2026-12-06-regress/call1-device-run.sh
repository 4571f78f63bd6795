#!/bin/bash
# Call 1: the 128-channel fused form's 3-6% (bench/results/2026-12-06-slot-checks, call 2), and the
# fused CTAs' barrier initialisation. Four builds, each with its own Python package, in turn, three
# rounds: L = 9c5af1f (before state pools), P = main 3a36ba1, R2 = P with the consumers computing
# the state offsets themselves (no Smem::state), B = R2 with the barriers initialised one per warp.
# Then the whole table for B (hint, accuracy); B's fused tests and
# racecheck / synccheck on the matrix's fused cases.
# Carry tools_tmp/A.tgz; command `tar xzf tools_tmp/A.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/c1; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
use() { cp tools_tmp/$1/python/gdn2/*.so python/gdn2/; cp tools_tmp/$1/python/gdn2/*.py python/gdn2/ 2>/dev/null; }
mkdir -p tools_tmp/P/python/gdn2 && cp python/gdn2/*.py tools_tmp/P/python/gdn2/
ROWS=S1-MHA-T64,S3-MHA-PACKED-T4096,N64-MIXED-MHA,N64-MIXED-GVA2,B8x2K-MHA,B4x4K-MHA,B8x2K-GVA2
for round in 1 2 3; do
  for b in L P R2 B; do
    use $b
    timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows $ROWS --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1; echo "rc=$?" >> $R/bench-$b-$round.log; mark bench-$b-$round
  done
done
python3 - <<'PY'
import json, statistics, os
R = os.environ["OUT"] + "/c1"; B = ["L", "P", "R2", "B"]
runs = {b: [json.load(open(f"{R}/bench-{b}-{i}/results.json"))["rows"] for i in (1, 2, 3)
            if os.path.exists(f"{R}/bench-{b}-{i}/results.json")] for b in B}
print("| row | " + " | ".join(B) + " | P/L | R2/L | B/L |")
print("|---" * (len(B) + 4) + "|")
for j, r in enumerate(runs["L"][0]):
    med = {b: statistics.median(x[j]["graph_us"] for x in runs[b]) for b in B}
    cell = lambda b: " ".join(f"{x[j]['graph_us']:.1f}" for x in runs[b])
    print(f"| {r['row']} | " + " | ".join(cell(b) for b in B) + f" | {med['P']/med['L']:.3f} | {med['R2']/med['L']:.3f} | {med['B']/med['L']:.3f} |")
PY
use B; timeout 60 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-B-hint > $R/full-B-hint.log 2>&1; echo "rc=$?" >> $R/full-B-hint.log; mark full-B-hint
# B's checks: the fused tests, racecheck and synccheck on the fused cases of the matrix.
use B; mkdir -p build && cp tools_tmp/B/bin/* build/
timeout 80 python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py -q -x -k "fused" > $R/pytest-B-fused.log 2>&1; echo "rc=$?" >> $R/pytest-B-fused.log; mark pytest-B
FU=fused-auto-mha-T64,fused-gva4-T200,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-v128-mha-rand40,fused-v128-gva2-34x40,fused-gvapair-strong-300+129+17+1+300,fused-v128-mha-T33,fault-cu-fused,fault-cu-fused-v128,fused-v128-unordered-300
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$FU" OUT=$R/san-B SANITIZE_TIMEOUT=70 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize-B.log 2>&1; echo "rc=$?" >> $R/sanitize-B.log; pkill -f compute-sanitizer; mark sanitize-B
tail -n 2 $R/pytest-B-fused.log; grep -h "compute-sanitizer" $R/sanitize-B.log
cat $R/gpu.txt $R/times.log
