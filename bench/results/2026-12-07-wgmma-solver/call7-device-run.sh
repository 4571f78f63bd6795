#!/bin/bash
# Session of 2026-12-07 from 07:57, call 7: main (1cfa015's build) against wvs (branch wvsolver:
# the persistent 128-channel kernel's solvers form w*v, form_wv, and its producer does not).
# 1. A/B rounds alternating (S3, N64-MIXED-MHA, B8x2K-MHA; S1 the control); 2. outputs main vs
# wvs (expected bit for bit); 3. wvs's fused GPU tests (the libraries copied into python/gdn2,
# which conftest.py puts first) and the sanitizers over the fused 128-channel cases.
set -u
R=$OUT/x; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-420} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/x.tgz -C $OUT x; }
T=tools_tmp/ab1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for k in 1 2 3 4 5; do
  for v in main wvs; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,N64-MIXED-MHA,B8x2K-MHA --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k
  done
  pack
done
python3 - $R > $R/ab-summary.txt <<'PY'
import json, statistics, sys, glob
R = sys.argv[1]
med = {}
for v in ("main", "wvs"):
    rows = {}
    for f in sorted(glob.glob(f"{R}/ab-{v}[0-9]/results.json")):
        for r in json.load(open(f))["rows"]:
            rows.setdefault(r["row"], []).append(r["graph_us"])
    med[v] = {k: statistics.median(x) for k, x in rows.items()}
    print(v, {k: [round(y, 1) for y in x] for k, x in rows.items()})
for k in med["main"]:
    a, b = med["main"][k], med["wvs"].get(k, float("nan"))
    print(f"{k}: main {a:.1f} wvs {b:.1f} {100 * (b / a - 1):+.1f}%")
PY
cat $R/ab-summary.txt
for v in main wvs; do PYTHONPATH=$T/$v/python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; echo "rc=$?" >> $R/dump-$v.log; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-wvs.pt > $R/compare-wvs.log 2>&1; echo "rc=$?" >> $R/compare-wvs.log
rm -f $R/dump-*.pt; mark compare; pack
cp $T/wvs/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/wvs/bin/* build/
timeout 150 python3 -m pytest -q -p no:cacheprovider -rs tests/python/*_gpu.py -k "fused or Fused or decays or harmless" > $R/pytest-wvs.log 2>&1; echo "rc=$?" >> $R/pytest-wvs.log
mark pytest-wvs; pack
L=$(( $(left) - 5 )); [ $L -gt 150 ] && L=150
CASES=fused-v128-mha-rand40,fused-v128-strong-rand70,fused-v128-fewstrong-rand70,fused-v128-many-mha-rand70,fused-v128-unordered-300,fused-persistent-1x200,fused-persistent-1x300,fused-persistent-long-60,fault-g-fused-v128,fault-values-fused-v128,fault-cu-fused-v128
[ $L -gt 30 ] && { GDN2_COMMIT=wvs SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-wvs SANITIZE_TIMEOUT=$(( L / 3 )) timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-wvs.log 2>&1; echo "rc=$?" >> $R/sanitize-wvs.log; mark sanitize-wvs; pack; }
cat $R/times.log; cat $R/ab-summary.txt; grep -v True $R/compare-wvs.log | tail -5
tail -n 3 $R/pytest-wvs.log; grep -h "compute-sanitizer\|receipt" $R/sanitize-wvs.log
pack
