#!/bin/bash
# call 12: f23 = f20 with each block's output stored while the next block's first product runs;
# pytest -k fused on f23, the timeline of f23-t (S1, S2, B8x2K), probes g3/f20/f23 interleaved.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
mkdir -p build && cp $T/f23/bin/* build/ && cp $T/f23/python/gdn2/* python/gdn2/
PYTHONPATH=python timeout 120 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k fused -p no:cacheprovider > $R/pytest-fused.log 2>&1; echo "rc=$?" >> $R/pytest-fused.log
tail -2 $R/pytest-fused.log; mark pytest-fused
cp $T/f23-t/python/gdn2/libgdn2_torch.so python/gdn2/
timeout 60 python3 tools_tmp/scripts/fused_timeline4.py > $R/timeline-f23.log 2>&1; echo rc=$? >> $R/timeline-f23.log
cat $R/timeline-f23.log; mark timeline
for V in g3 f20 f23 g3 f23; do
  i=1; [ -d $R/probe-$V-1 ] && i=2
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-$i PYTHONPATH=python timeout 100 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$i.log 2>&1; echo rc=$? >> $R/probe-$V-$i.log
  mark probe-$V-$i
done
python3 - "$R" > $R/table.txt <<'PY'
import json, sys
R = sys.argv[1]
ld = lambda v: json.load(open(f"{R}/probe-{v}/probe.json"))
runs = ["g3-1", "f20-1", "f23-1", "g3-2", "f23-2"]
d = {v: ld(v) for v in runs}
print("row", *runs)
for r in d["g3-1"]:
    print(r, *[round(d[v][r]["fused"], 1) for v in runs], d["f23-1"][r].get("err_fused"))
PY
cat $R/table.txt
