#!/bin/bash
# Session 2026-12-04 (second), call 1: the 32-channel pass with its factor A operands loaded from L2
# straight into registers (ra) against base (6dd6144's build, main's kernels): bitwise dumps; every
# row and one sequence of 512 to 32K tokens, three rounds; timelines of both on S2 and L32K; pytest
# on ra whatever the gate; if the rows the 32-channel pass runs on gain (geometric mean <= 0.99, no
# row over +1%), ra's example, sanitizers, final run with accuracy, stress.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
V="ra"
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for v in poll $V; do (PYTHONPATH=$T/$v/python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1); done
for v in $V; do python3 bench/outputs_bitwise.py compare $R/dump-poll.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; echo rc=$? >> $R/compare-$v.log; done
rm -f $R/dump-*.pt
echo "dumps done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
mkdir -p build; cp $T/ra/bin/* build/; cp $T/ra/python/gdn2/*.so python/gdn2/
(timeout 100 python3 -m pytest tests/python -q -rs -x > $R/pytest.log 2>&1; echo rc=$? >> $R/pytest.log)
echo "pytest done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
for k in 1 2 3; do
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
for b in ("poll", "ra"):
    rs = [rows(f"{b}{k}") for k in (1, 2, 3)]
    best[b] = {name: min(r[name] for r in rs) for name in rs[0]}
ratios = {n: best["ra"][n] / best["poll"][n] for n in best["poll"]}
v32 = [n for n in ratios if n.split("-")[0] in ("S1", "S2", "S5") or n.startswith("L32K")]
g = math.exp(sum(math.log(ratios[n]) for n in v32) / len(v32))
ok = (open(f"{R}/pytest.log").read().count("rc=0") == 1 and g <= 0.99 and max(ratios.values()) <= 1.01)
print("ra", round(g, 4), v32, {n: round(x, 4) for n, x in ratios.items()}, ok)
print("PICK", "ra" if ok else "none")
PY
for v in poll $V; do timeout 40 $T/$v/bin/gdn2_phase1_timeline S2 L32K > $R/timeline-$v.log 2>&1; done
echo "timelines done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
W=$(sed -n 's/^PICK //p' $R/gate.txt)
if [ -n "$W" ] && [ "$W" != none ]; then
  ./build/gdn2_example > $R/example.log 2>&1; echo rc=$? >> $R/example.log
  (OUT=$R/san SANITIZE_TIMEOUT=60 timeout 150 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1)
  echo "sanitize done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
  (cd $T/$W && GDN2_COMMIT=$W PYTHONPATH=$T/$W/python timeout 90 python3 bench/bench.py --no-fla --out $R/final > $R/final.log 2>&1)
  echo "final bench done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
  (PYTHONPATH=python timeout 100 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "stress rc=$? $(( $(date +%s) - t0 ))s" >> $R/times.log)
fi
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
