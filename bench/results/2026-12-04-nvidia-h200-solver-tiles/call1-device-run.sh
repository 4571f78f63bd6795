#!/bin/bash
# session call 1: f27's full validation (example, full pytest, bench, crossover, stress) and the
# fused path forced, f26 (landed) against f27, twice each.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/f27/bin/* build/ && cp $T/f27/python/gdn2/* python/gdn2/
./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
mark example
timeout 170 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest
tail -3 $R/pytest.log
timeout 120 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log
mark bench
timeout 100 python3 bench/algorithm_crossover.py --replays 20 --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
PYTHONPATH=python timeout 150 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log
mark stress
tail -3 $R/stress.log
for V in f26 f27 f26 f27; do
  i=1; [ -d $R/probe-$V-1 ] && i=2
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-$i PYTHONPATH=python timeout 100 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$i.log 2>&1; echo rc=$? >> $R/probe-$V-$i.log
  mark probe-$V-$i
done
python3 - "$R" > $R/table.txt <<'PY'
import json, sys
R = sys.argv[1]
runs = ["f26-1", "f27-1", "f26-2", "f27-2"]
d = {v: json.load(open(f"{R}/probe-{v}/probe.json")) for v in runs}
print("row", *runs, "err")
for r in d["f26-1"]:
    print(r, *[round(d[v][r]["fused"], 1) for v in runs], d["f27-1"][r].get("err_fused"))
PY
cat $R/table.txt; cat $R/times.log
