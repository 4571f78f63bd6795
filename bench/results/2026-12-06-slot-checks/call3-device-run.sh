#!/bin/bash
# Call 3: which change costs the 128-channel fused form (call 2: B8x2K-MHA +5.8%, S3 +4.4%,
# N64-MIXED-MHA +3.4% against 9c5af1f). Three builds, each with its own Python package: the branch
# (tools_tmp/P), d8600a0 (state pools, fp32 states: tools_tmp/D) and 9c5af1f (tools_tmp/L), three
# rounds in turn, the rows of the fused path and S2. Carry tools_tmp/P.tgz and tools_tmp/D.tgz;
# command `tar xzf tools_tmp/P.tgz -C tools_tmp && tar xzf tools_tmp/D.tgz -C tools_tmp && bash <this>`.
set -u
R=$OUT/r3; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
mkdir -p /tmp/branch-py && cp python/gdn2/*.py /tmp/branch-py/ && mkdir -p tools_tmp/P/py && cp /tmp/branch-py/*.py tools_tmp/P/py/
use() { cp $1/python/gdn2/*.so python/gdn2/; cp $2/*.py python/gdn2/; }
ROWS=S2-MHA-T1024,S3-MHA-PACKED-T4096,N64-MIXED-MHA,B8x2K-MHA,B4x4K-MHA,B8x2K-GVA2
for round in 1 2 3; do
  for b in P D L; do
    d=$PWD/tools_tmp/$b; py=$d/python/gdn2; [ $b = P ] && py=$d/py
    use $d $py
    timeout 25 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows $ROWS --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1; echo "rc=$?" >> $R/bench-$b-$round.log; mark bench-$b-$round
  done
done
use $PWD/tools_tmp/P /tmp/branch-py
python3 - <<'PY'
import json, statistics, os
R = os.environ["OUT"] + "/r3"
runs = {b: [json.load(open(f"{R}/bench-{b}-{i}/results.json"))["rows"] for i in (1, 2, 3)
            if os.path.exists(f"{R}/bench-{b}-{i}/results.json")] for b in "PDL"}
print("| row | branch (P) | d8600a0 (D) | 9c5af1f (L) | P / L | D / L |")
print("|---|---|---|---|---|---|")
for j, r in enumerate(runs["P"][0]):
    med = {b: statistics.median(x[j]["graph_us"] for x in runs[b]) for b in "PDL"}
    cell = lambda b: " ".join(f"{x[j]['graph_us']:.1f}" for x in runs[b])
    print(f"| {r['row']} | {cell('P')} | {cell('D')} | {cell('L')} | {med['P'] / med['L']:.3f} | {med['D'] / med['L']:.3f} |")
PY
cat $R/times.log
