#!/bin/bash
# Session of 2026-12-07 from 07:57, call 4: main (1cfa015's build, f1956de's kernels) against q3
# (3a70f3a's build: the kernels before the failing channels' terms), five rounds alternating, on
# an H100: does f1956de's +1.6-2.1% on S3 and N64-MIXED-MHA (measured on an H200) show here?
set -u
R=$OUT/q; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/q.tgz -C $OUT q; }
T=tools_tmp/ab1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for k in 1 2 3 4 5; do
  for v in main q3; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 60 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,N64,B8x2K,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k
  done
  pack
done
python3 - $R > $R/ab-summary.txt <<'PY'
import json, statistics, sys, glob
R = sys.argv[1]
med, runs = {}, {}
for v in ("main", "q3"):
    rows = {}
    for f in sorted(glob.glob(f"{R}/ab-{v}[0-9]/results.json")):
        for r in json.load(open(f))["rows"]:
            rows.setdefault(r["row"], []).append(r["graph_us"])
    med[v] = {k: statistics.median(x) for k, x in rows.items()}
    runs[v] = rows
    print(v, {k: [round(y, 1) for y in x] for k, x in rows.items()})
for k in med["main"]:
    a, b = med["main"][k], med["q3"].get(k, float("nan"))
    print(f"{k}: q3 (3a70f3a) {b:.1f} main (f1956de) {a:.1f}  main vs q3 {100 * (a / b - 1):+.1f}%")
PY
cat $R/times.log; cat $R/ab-summary.txt
pack
