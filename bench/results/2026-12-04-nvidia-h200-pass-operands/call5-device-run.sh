#!/bin/bash
# Session 2026-12-04 (second), call 5: ls2 (RU's Kb, T and Out's Qg read from shared memory into
# registers by ldmatrix in the half chunk in which each waits) with the next chunk's Kb, T, Qg copied
# a half chunk earlier, at the first barrier (ls3), and the state warpgroups' Kend^T in registers
# too, read while they wait for U (ls4); against base (6dd6144's build, main's kernels): bitwise
# dumps; every row and one sequence of 512 to 32K tokens, two rounds; timelines on S2 and L32K; the
# better variant if the rows the 32-channel pass runs on gain (geometric mean <= 0.99, no row over
# +1%): its example, pytest, sanitizers, final run, stress.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
V="ls3 ls4"
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for v in poll $V; do (PYTHONPATH=$T/$v/python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1); done
for v in $V; do python3 bench/outputs_bitwise.py compare $R/dump-poll.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; echo rc=$? >> $R/compare-$v.log; done
rm -f $R/dump-*.pt
echo "dumps done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
for k in 1 2; do
  for n in poll $V; do
    d=$T/$n
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/sequence_lengths.py $n$k >> $R/lengths.jsonl 2>> $R/lengths.err)
    (cd $d && GDN2_COMMIT=$n PYTHONPATH=$d/python timeout 70 python3 bench/bench.py --no-fla --no-accuracy --out $R/$n$k > $R/$n$k.log 2>&1)
    echo "$n$k done $(( $(date +%s) - t0 ))s" >> $R/times.log
  done
  pack
done
python3 - > $R/gate.txt 2>&1 <<'PY'
import json, math, os
R = os.environ["OUT"] + "/r"
def rows(n): return {r["row"]: r["graph_us"] for r in json.load(open(f"{R}/{n}/results.json"))["rows"]}
best = {}
for b in ("poll", "ls3", "ls4"):
    rs = [rows(f"{b}{k}") for k in (1, 2)]
    best[b] = {name: min(r[name] for r in rs) for name in rs[0]}
pick, score = None, 0.99
for v in ("ls3", "ls4"):
    ratios = {n: best[v][n] / best["poll"][n] for n in best["poll"]}
    v32 = [n for n in ratios if n.split("-")[0] in ("S1", "S2", "S5") or n.startswith("L32K")]
    g = math.exp(sum(math.log(ratios[n]) for n in v32) / len(v32))
    ok = open(f"{R}/compare-{v}.log").read().count("rc=0") == 1 and g <= score and max(ratios.values()) <= 1.01
    print(v, round(g, 4), {n: round(x, 4) for n, x in ratios.items()}, ok)
    if ok: pick, score = v, g
print("PICK", pick if pick else "none")
PY
for v in poll $V; do timeout 40 $T/$v/bin/gdn2_phase1_timeline S2 L32K > $R/timeline-$v.log 2>&1; done
echo "timelines done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
W=$(sed -n 's/^PICK //p' $R/gate.txt)
if [ -n "$W" ] && [ "$W" != none ]; then
  mkdir -p build; cp $T/$W/bin/* build/; cp $T/$W/python/gdn2/*.so python/gdn2/
  ./build/gdn2_example > $R/example.log 2>&1; echo rc=$? >> $R/example.log
  (timeout 100 python3 -m pytest tests/python -q -rs > $R/pytest.log 2>&1; echo rc=$? >> $R/pytest.log)
  echo "pytest done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
  (OUT=$R/san SANITIZE_TIMEOUT=60 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1)
  echo "sanitize done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
  (cd $T/$W && GDN2_COMMIT=$W PYTHONPATH=$T/$W/python timeout 90 python3 bench/bench.py --no-fla --out $R/final > $R/final.log 2>&1)
  echo "final bench done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
  (PYTHONPATH=python timeout 100 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "stress rc=$? $(( $(date +%s) - t0 ))s" >> $R/times.log)
fi
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
