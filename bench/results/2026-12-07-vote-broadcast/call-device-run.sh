#!/bin/bash
# Session of 2026-12-07 from 06:09 (next21.sh: next20.sh made shorter as device time ran down). ab18/main = main 55696a2's build (its fused kernels'
# SASS = f1956de's, md5 87772dc9 over the five, addresses stripped); ab18/fu = fu (the persistent
# 128-channel form's solver holds the vote as a warp broadcast across tensor_ap instead of
# re-reading it from shared memory; the other four fused kernels' SASS identical to main's).
# 1. three rounds main/fu alternating (S3, B8x2K, N64); 2. outputs main vs fu bit for bit;
# 3. the chosen build (fu if its median sum over the three persistent-128 rows is >= 0.5% lower,
# else main): whole table, sanitizers over the fused cases, pytest's fused tests, then what time
# leaves of the sanitizers over the example and the whole matrix.
# Package: tar czf tools_tmp/c37.tgz -C tools_tmp ab18 s ; command (repository root):
#   tar xzf tools_tmp/c37.tgz -C tools_tmp && DEADLINE=200 bash tools_tmp/s/next21.sh (run so, on an H100)
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab18
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for k in 1 2 3; do
  for v in main fu; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S3,B8x2K,N64 --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
python3 - $R > $R/ab-summary.txt <<'PY'
import json, statistics, sys, glob
R = sys.argv[1]
med = {}
for v in ("main", "fu"):
    rows = {}
    for f in sorted(glob.glob(f"{R}/ab-{v}[0-9]/results.json")):
        for r in json.load(open(f))["rows"]:
            rows.setdefault(r["row"], []).append(r["graph_us"])
    med[v] = {k: statistics.median(x) for k, x in rows.items()}
    print(v, {k: [round(y, 1) for y in x] for k, x in rows.items()})
for k in med["main"]:
    a, b = med["main"][k], med["fu"].get(k, float("nan"))
    print(f"{k}: main {a:.1f} fu {b:.1f} {100 * (b / a - 1):+.1f}%")
keys = ["S3-MHA-PACKED-T4096", "N64-MIXED-MHA", "B8x2K-MHA"]
sa = sum(med["main"].get(k, 0) for k in keys); sb = sum(med["fu"].get(k, 1e9) for k in keys)
print("CHOICE", "fu" if sb <= 0.995 * sa else "main")
PY
cat $R/ab-summary.txt
for v in main fu; do PYTHONPATH=$T/$v/python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; echo "rc=$?" >> $R/dump-$v.log; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-fu.pt > $R/compare-fu.log 2>&1; echo "rc=$?" >> $R/compare-fu.log
rm -f $R/dump-*.pt; mark compare; pack
C=$(awk '/^CHOICE/{print $2}' $R/ab-summary.txt); C=${C:-main}; echo "chosen $C" >> $R/times.log
cp $T/$C/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/$C/bin/* build/
(cd $T/$C && GDN2_COMMIT=$([ $C = fu ] && echo a153c07-fu || echo 55696a2) timeout 70 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-$C > $R/full-$C.log 2>&1; echo "rc=$?" >> $R/full-$C.log)
mark full-$C; pack
CASES=fault-g-fused,fault-values-fused,fused-pair-fewstrong-300+129+17+1,fused-pair-strong-300+129+17+1,fused-mha-rand20,fused-v128-fewstrong-rand70,fused-v128-strong-rand70,fused-v128-mha-rand40,fused-gvapair-fewstrong-300+129+17+1+300,fused-gvapair-strong-300+129+17+1+300,fault-g-fused-v128
L=$(( $(left) - 60 )); [ $L -gt 100 ] && L=100
GDN2_COMMIT=$C SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-$C SANITIZE_TIMEOUT=$L timeout $(( L * 3 )) bash scripts/gpu_check.sh sanitize > $R/sanitize-$C.log 2>&1; echo "rc=$?" >> $R/sanitize-$C.log
mark sanitize-$C; pack
L=$(( $(left) - 5 )); [ $L -gt 170 ] && L=170
[ $L -gt 30 ] && { PYTHONPATH=python timeout $L python3 -m pytest -q tests/python -p no:cacheprovider -k "fused or Fused or decays or harmless" > $R/pytest-$C.log 2>&1; echo "rc=$?" >> $R/pytest-$C.log; mark pytest-$C; pack; }
L=$(( $(left) - 3 ))
[ $L -gt 40 ] && { GDN2_COMMIT=$C SANITIZE_TOOLS="memcheck synccheck racecheck" OUT=$R/sanall-$C SANITIZE_TIMEOUT=$(( L / 4 )) timeout $L bash scripts/gpu_check.sh example sanitize > $R/sanall-$C.log 2>&1; echo "rc=$?" >> $R/sanall-$C.log; mark sanall-$C; pack; }
cat $R/times.log; cat $R/ab-summary.txt; tail -n 6 $R/compare-fu.log
grep -h "compute-sanitizer\|receipt" $R/sanitize-$C.log $R/sanall-$C.log 2>/dev/null; tail -n 2 $R/pytest-$C.log
grep '^| ' $R/full-$C/results.md 2>/dev/null | cut -c1-150 | head -16
pack
