#!/bin/bash
# Minimal call (device budget ~260 s; v35 without the winner's pytest): fused-forced probes of fh2k (main), fh6 (3 slots), fh7 (3 raw
# stages), twice each; timelines fh2t, fh6t (NB=32), fh7t; then main's fla_compat with FLA on fh2k.
# Carry: tools_tmp/c28, tools_tmp/c29, tools_tmp/site (FLA), tools_tmp/scripts.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
for b in c28/fh2k c28/fh2t c29/fh6 c29/fh6t c29/fh7 c29/fh7t; do tar xJf $T/$b.tar.xz -C $T; done
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
git log --oneline -1 > $R/tree.txt; for b in fh2k fh6 fh7; do echo "$b: $(cat $T/$b/commit)" >> $R/tree.txt; done
mkdir -p build
use() { cp $T/$1/bin/* build/ 2>/dev/null; cp $T/$1/python/gdn2/*.so python/gdn2/; }
use fh2k
for V in fh2k fh6 fh7 fh2k fh6 fh7; do
  i=1; [ -f $R/probe-$V-1.log ] && i=2
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-$i PYTHONPATH=python timeout 40 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$i.log 2>&1; echo rc=$? >> $R/probe-$V-$i.log
  mark probe-$V-$i
done
python3 - "$R" fh2k fh6 fh7 > $R/table.txt <<'PY'
import json, math, os, sys
R, builds = sys.argv[1], sys.argv[2:]
runs = [f"{b}-{i}" for i in (1, 2) for b in builds]
d = {v: json.load(open(f"{R}/probe-{v}/probe.json")) for v in runs if os.path.exists(f"{R}/probe-{v}/probe.json")}
print("row", *d, "err(" + ", ".join(b for b in builds if f"{b}-1" in d) + ")")
rows = list(dict.fromkeys(r for x in d.values() for r in x))
for r in rows:
    print(r, *[round(d[v].get(r, {}).get("fused", float("nan")), 1) for v in d],
          *[d[f"{b}-1"].get(r, {}).get("err_fused") for b in builds if f"{b}-1" in d])
def mean(b, r):
    xs = [d[f"{b}-{i}"][r]["fused"] for i in (1, 2) if f"{b}-{i}" in d and r in d[f"{b}-{i}"]]
    return sum(xs) / len(xs) if xs else None
best = None
for b in builds[1:]:
    ratios = [mean(b, r) / mean(builds[0], r) for r in rows if mean(b, r) and mean(builds[0], r)]
    if ratios:
        g = math.exp(sum(map(math.log, ratios)) / len(ratios))
        if g < 0.985 and (best is None or g < best[1]): best = (b, g)
        print(f"{b}/{builds[0]}: geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.4f} min {min(ratios):.3f} max {max(ratios):.3f} over {len(ratios)} rows")
print(f"winner {best[0] if best else None}")
PY
cat $R/table.txt
for V in fh2t fh6t fh7t; do
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  NB=$([ $V = fh6t ] && echo 32 || echo 64) timeout 30 python3 $T/scripts/fused_timeline8.py > $R/timeline-$V.log 2>&1; echo "rc=$?" >> $R/timeline-$V.log
  mark timeline-$V
done
use fh2k
PYTHONPATH=$T/site timeout 60 python3 -m pytest tests/python/test_fla_compat_gpu.py -q -rs -p no:cacheprovider > $R/fla-compat.log 2>&1; echo "rc=$?" >> $R/fla-compat.log
mark fla-compat
cat $R/times.log; tail -3 $R/fla-compat.log; cat $R/timeline-fh*t.log | grep -v block0
