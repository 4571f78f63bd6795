#!/bin/bash
# call 11: f20 = two solver warpgroups (one per block parity; 512 threads, registers 112/224/88/88),
# A in the solver's own tile and only the stores into the slot waiting for the consumer's release;
# f21 = the same release order with one solver (384 threads). pytest -k fused on f20, probes
# g3/f21/f20 interleaved; if f20 is faster by more than 2% on S2 and B8x2K, its full validation.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/f20/bin/* build/ && cp $T/f20/python/gdn2/* python/gdn2/
PYTHONPATH=python timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-fused.log 2>&1; echo "rc=$?" >> $R/pytest-fused.log
tail -2 $R/pytest-fused.log; mark pytest-fused
for V in g3 f21 f20 g3 f20; do
  i=1; [ -d $R/probe-$V-1 ] && i=2
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-$i PYTHONPATH=python timeout 100 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$i.log 2>&1; echo rc=$? >> $R/probe-$V-$i.log
  mark probe-$V-$i
done
cp $T/f20/python/gdn2/libgdn2_torch.so python/gdn2/
python3 - "$R" > $R/gate.txt <<'PY'
import json, sys
R = sys.argv[1]
ld = lambda v: json.load(open(f"{R}/probe-{v}/probe.json"))
g = [ld("g3-1"), ld("g3-2")]; f = [ld("f20-1"), ld("f20-2")]; h = ld("f21-1")
best = lambda d, r: min(x[r]["fused"] for x in d)
ok = all(best(f, r) < 0.98 * best(g, r) for r in g[0] if r.startswith(("S2", "B8x2K")))
print("RUN" if ok else "SKIP")
for r in g[0]:
    print(r, "g3", [round(x[r]["fused"], 1) for x in g], "f21", round(h[r]["fused"], 1), "f20", [round(x[r]["fused"], 1) for x in f],
          "err", g[0][r].get("err_fused"), f[0][r].get("err_fused"))
PY
cat $R/gate.txt
grep -q RUN $R/gate.txt || exit 0
grep -q "rc=0" $R/pytest-fused.log || exit 0
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
left=$(( 540 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && { PYTHONPATH=python timeout $left python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; }
mark stress
tail -3 $R/stress.log; cat $R/times.log
