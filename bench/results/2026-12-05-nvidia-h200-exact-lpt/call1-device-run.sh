#!/bin/bash
# Call 1 (2026-12-05 session from 10:39): the exact path's reduce-scatter + the producer's decay
# factors + longest first, rebuilt (x1) against main (m0): probes bitwise and timed (two rounds,
# alternating), the four sanitizers on the whole matrix and the example (x1), the full pytest (x1).
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
(git log --oneline -1; git status --short; for b in m0 x1; do echo "$b: $(head -1 $T/$b/commit)"; done; md5sum $T/{m0,x1}/python/gdn2/*.so) > $R/tree.txt
mkdir -p build
use() { cp $T/$1/bin/* build/; cp $T/$1/python/gdn2/*.so python/gdn2/; }
for round in 1 2; do
  for V in m0 x1; do
    use $V
    timeout 100 python3 - "$T/scripts" "/tmp/save-$V-$round" "$([ $V-$round = m0-1 ] || echo /tmp/save-m0-1)" > $R/probe-$V-$round.log 2>&1 <<'PY'
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
use x1; md5sum python/gdn2/*.so build/gdn2_* > $R/validated-x1.md5
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
L=$(cap 330 230); SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" OUT=$R/san SANITIZE_TIMEOUT=110 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer 2>/dev/null; sleep 1; mark sanitize
L=$(cap 585 250); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider -x --durations=15 > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest; }
tail -3 $R/pytest.log; grep -h 'compute-sanitizer' $R/sanitize.log; cat $R/times.log
