#!/bin/bash
# call 10: g4 = f19 (f18 with Smem aligned by an offset on the shared pointer: f18 aligned a generic
# address, so every shared access through it compiled to generic ST.E/LD.E) against g3 (landed):
# pytest -k fused, probes; if g4 is faster by more than 2% on S2 and B8x2K, its full validation
# (example, pytest, sanitizers, bench.py, crossover, stress).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/g4/bin/* build/ && cp $T/g4/python/gdn2/* python/gdn2/
PYTHONPATH=python timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-fused.log 2>&1; echo "rc=$?" >> $R/pytest-fused.log
tail -2 $R/pytest-fused.log; mark pytest-fused
for V in g3 g4; do
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V PYTHONPATH=python timeout 100 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V.log 2>&1; echo rc=$? >> $R/probe-$V.log
  mark probe-$V
done
cp $T/g4/python/gdn2/libgdn2_torch.so python/gdn2/
paste $R/probe-g3.log $R/probe-g4.log | awk -F'\t' '{split($1,a," "); split($2,b," "); print a[1], a[2], b[2], b[3]}'
python3 - "$R" > $R/gate.txt <<'PY'
import json, sys
R = sys.argv[1]
g3, g4 = (json.load(open(f"{R}/probe-{v}/probe.json")) for v in ("g3", "g4"))
ok = all(g4[r]["fused"] < 0.98 * g3[r]["fused"] for r in ("S2-MHA-T1024", "B8x2K-MHA"))
print("RUN" if ok else "SKIP", {r: (round(g3[r]["fused"], 1), round(g4[r]["fused"], 1)) for r in ("S1-MHA-T64", "S2-MHA-T1024", "B8x2K-MHA")})
PY
cat $R/gate.txt
grep -q RUN $R/gate.txt || exit 0
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
mark example
timeout 170 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
tail -3 $R/pytest.log
OUT=$R/san SANITIZE_TIMEOUT=120 timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
tail -4 $R/sanitize.log
timeout 120 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log
mark bench
timeout 100 python3 bench/algorithm_crossover.py --replays 20 --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
left=$(( 330 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && { PYTHONPATH=python timeout $left python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; }
mark stress
tail -3 $R/stress.log; cat $R/times.log
