#!/bin/bash
# call 15: f26 = f24 (two solvers, first product as one m64n32) with the inverse's reads of A one
# word at a time (call 14's racecheck reported warp 1's widened reads of words warp 0 writes) and
# every solver thread waiting for the slot before its full arrival. Sanitizers first, then pytest
# -k fused, probes g3/f24/f26, and the full validation (example, pytest, bench, crossover, stress).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/f26/bin/* build/ && cp $T/f26/python/gdn2/* python/gdn2/
OUT=$R/san SANITIZE_TIMEOUT=120 timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
tail -4 $R/sanitize.log
PYTHONPATH=python timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-fused.log 2>&1; echo "rc=$?" >> $R/pytest-fused.log
tail -2 $R/pytest-fused.log; mark pytest-fused
for V in g3 f24 f26 g3 f26; do
  i=1; [ -d $R/probe-$V-1 ] && i=2
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-$i PYTHONPATH=python timeout 100 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$i.log 2>&1; echo rc=$? >> $R/probe-$V-$i.log
  mark probe-$V-$i
done
cp $T/f26/python/gdn2/libgdn2_torch.so python/gdn2/
python3 - "$R" > $R/table.txt <<'PY'
import json, sys
R = sys.argv[1]
runs = ["g3-1", "f24-1", "f26-1", "g3-2", "f26-2"]
d = {v: json.load(open(f"{R}/probe-{v}/probe.json")) for v in runs}
print("row", *runs, "err")
for r in d["g3-1"]:
    print(r, *[round(d[v][r]["fused"], 1) for v in runs], d["f26-1"][r].get("err_fused"))
PY
cat $R/table.txt
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
mark example
timeout 170 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
tail -3 $R/pytest.log
timeout 120 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log
mark bench
timeout 100 python3 bench/algorithm_crossover.py --replays 20 --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
left=$(( 520 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && { PYTHONPATH=python timeout $left python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; }
mark stress
tail -3 $R/stress.log; cat $R/times.log
