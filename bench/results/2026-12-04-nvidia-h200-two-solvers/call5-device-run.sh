#!/bin/bash
# call 17: the timeline of f26-t (f26 with SM-clock marks; dump from the consumer), then f27 (f26
# with A's column halves in tiles of their own instead of volatile reads, registers 96/224/96/96):
# sanitizers, pytest -k fused, probes f26/f27 interleaved. No full validation (budget).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
cp $T/f26-t/python/gdn2/* python/gdn2/
timeout 60 python3 tools_tmp/scripts/fused_timeline4.py > $R/timeline-f26.log 2>&1; echo rc=$? >> $R/timeline-f26.log
cat $R/timeline-f26.log; mark timeline
mkdir -p build && cp $T/f27/bin/* build/ && cp $T/f27/python/gdn2/* python/gdn2/
OUT=$R/san SANITIZE_TIMEOUT=120 timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
mark sanitize
tail -4 $R/sanitize.log
PYTHONPATH=python timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-fused.log 2>&1; echo "rc=$?" >> $R/pytest-fused.log
tail -2 $R/pytest-fused.log; mark pytest-fused
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
