#!/bin/bash
# Call 3: kAuto refitted and kAuto's choice on the device (branch device-choice), in two builds
# whose fused kernels differ only in exact_ap: dc1 (call 1's, pairs of columns) and dc2 (the
# pairs' later shuffle steps one pair later, c073054's). Probes (dc2 bitwise against dc1, one
# round); the faster bitwise-equal build is chosen and validated: bench without and with the
# hint, full pytest, sanitizers, stress.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
(git log --oneline -1; git status --short; for b in dc1 dc2; do echo "$b: $(head -1 $T/$b/commit)"; done; md5sum $T/{dc1,dc2}/python/gdn2/*.so) > $R/tree.txt
mkdir -p build
use() { cp $T/$1/bin/* build/; cp $T/$1/python/gdn2/*.so python/gdn2/; }
for round in 1; do
  for V in dc1 dc2; do
    use $V
    timeout 100 python3 - "$T/scripts" "/tmp/save-$V-$round" "$([ $V-$round = dc1-1 ] || echo /tmp/save-dc1-1)" > $R/probe-$V-$round.log 2>&1 <<'PY'
import runpy, sys
scripts, save, other = sys.argv[1], sys.argv[2], sys.argv[3]
for name in ("exact_probe", "order_probe"):
    sys.argv = [name, save] + ([other] if other else [])
    try:
        runpy.run_path(f"{scripts}/{name}.py", run_name="__main__")
    except Exception as e:
        print(f"{name} failed: {type(e).__name__}: {e}", flush=True)
PY
    echo "rc=$?" >> $R/probe-$V-$round.log
    for j in order exact; do cp /tmp/save-$V-$round/${j}_probe.json $R/$j-$V-$round.json 2>/dev/null; done
    mark probe-$V-$round
  done
done
C=$(python3 - $R 2> $R/choice.txt <<'PY'
import json, math, sys
r = sys.argv[1]
try:
    ratios, equal = [], True
    for kind in ("exact", "order"):
        for rnd in (1,):
            a = json.load(open(f"{r}/{kind}-dc1-{rnd}.json")); b = json.load(open(f"{r}/{kind}-dc2-{rnd}.json"))
            for name in a:
                ratios.append(b[name]["fused_us"] / a[name]["fused_us"])
                equal &= b[name].get("bitwise_equal") is True
    g = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print("dc2" if equal and g < 0.99 else "dc1", file=sys.stdout)
    print(f"dc2/dc1 geomean {g:.4f} over {len(ratios)} timings, bitwise {equal}", file=sys.stderr)
except Exception as e:
    print("dc1"); print(f"choice failed: {e}", file=sys.stderr)
PY
)
echo "chosen $C" >> $R/choice.txt; cat $R/choice.txt
use $C; md5sum python/gdn2/*.so build/gdn2_* > $R/validated-$C.md5
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench-$C > $R/bench-$C.log 2>&1; echo "rc=$?" >> $R/bench-$C.log
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint-$C > $R/bench-hint-$C.log 2>&1; echo "rc=$?" >> $R/bench-hint-$C.log
mark bench
L=$(cap 330 170); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --durations=10 > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 460 130); SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" OUT=$R/san SANITIZE_TIMEOUT=110 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; sleep 1; mark sanitize
L=$(cap 540 100); [ $L -gt 60 ] && { PYTHONPATH=python timeout $L python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; }
tail -2 $R/pytest.log; grep -h 'compute-sanitizer' $R/sanitize.log; tail -1 $R/stress.log; cat $R/times.log
