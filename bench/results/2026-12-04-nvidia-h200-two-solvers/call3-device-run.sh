#!/bin/bash
# call 14: f24 = f20 with the consumer's first product as one m64n32 wgmma (accumulator not preset,
# w v added after); f25 = f24 with each block's output stored inside the next block's O/S window.
# pytest -k fused on f24 and f25, the timeline of f25-t, probes g3/f20/f24/f25 interleaved; if
# f25 is faster than g3 by more than 2% on S2 and B8x2K, its full validation.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/f25/bin/* build/ && cp $T/f25/python/gdn2/* python/gdn2/
for V in f24 f25; do
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  PYTHONPATH=python timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-fused-$V.log 2>&1; echo "rc=$?" >> $R/pytest-fused-$V.log
  tail -2 $R/pytest-fused-$V.log; mark pytest-fused-$V
done
cp $T/f25-t/python/gdn2/libgdn2_torch.so python/gdn2/
timeout 60 python3 tools_tmp/scripts/fused_timeline4.py > $R/timeline-f25.log 2>&1; echo rc=$? >> $R/timeline-f25.log
cat $R/timeline-f25.log; mark timeline
for V in g3 f20 f24 f25 g3 f25; do
  i=1; [ -d $R/probe-$V-1 ] && i=2
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-$i PYTHONPATH=python timeout 100 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$i.log 2>&1; echo rc=$? >> $R/probe-$V-$i.log
  mark probe-$V-$i
done
cp $T/f25/python/gdn2/libgdn2_torch.so python/gdn2/
python3 - "$R" > $R/table.txt <<'PY'
import json, sys
R = sys.argv[1]
runs = ["g3-1", "f20-1", "f24-1", "f25-1", "g3-2", "f25-2"]
d = {v: json.load(open(f"{R}/probe-{v}/probe.json")) for v in runs}
best = lambda vs, r: min(d[v][r]["fused"] for v in vs)
ok = all(best(["f25-1", "f25-2"], r) < 0.98 * best(["g3-1", "g3-2"], r) for r in d["g3-1"] if r.startswith(("S2", "B8x2K")))
print("RUN" if ok else "SKIP")
print("row", *runs, "err")
for r in d["g3-1"]:
    print(r, *[round(d[v][r]["fused"], 1) for v in runs], d["f25-1"][r].get("err_fused"))
PY
cat $R/table.txt
grep -q RUN $R/table.txt || exit 0
grep -q "rc=0" $R/pytest-fused-f25.log || exit 0
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
left=$(( 570 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && { PYTHONPATH=python timeout $left python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; }
mark stress
tail -3 $R/stress.log; cat $R/times.log
