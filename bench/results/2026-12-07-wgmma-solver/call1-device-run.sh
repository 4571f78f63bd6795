#!/bin/bash
# Session of 2026-12-07 from 07:57. ab1/main = main 1cfa015's build; ab1/apwg = branch apwg (the
# 128-channel form's one solver, A and P by one wgmma: wgmma_ap). Steps: 1. A/B rounds main/apwg
# alternating on the 128-channel rows (S3, B8x2K, N64) and S1 (pair form, same SASS: the control);
# 2. outputs main vs apwg; 3. apwg's fused GPU tests and the sanitizers over the fused cases;
# 4. the choice (apwg if its tests and sanitizers pass and its median sum over the three rows is
# >= 0.5% lower, else main): whole table; then what time leaves: pytest (all), sanitizers (all).
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for k in 1 2 3 4; do
  for v in main apwg; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K-MHA,N64-MIXED-MHA --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k
  done
  pack
done
python3 - $R > $R/ab-summary.txt <<'PY'
import json, statistics, sys, glob
R = sys.argv[1]
med = {}
for v in ("main", "apwg"):
    rows = {}
    for f in sorted(glob.glob(f"{R}/ab-{v}[0-9]/results.json")):
        for r in json.load(open(f))["rows"]:
            rows.setdefault(r["row"], []).append(r["graph_us"])
    med[v] = {k: statistics.median(x) for k, x in rows.items()}
    print(v, {k: [round(y, 1) for y in x] for k, x in rows.items()})
for k in med["main"]:
    a, b = med["main"][k], med["apwg"].get(k, float("nan"))
    print(f"{k}: main {a:.1f} apwg {b:.1f} {100 * (b / a - 1):+.1f}%")
keys = ["S3-MHA-PACKED-T4096", "N64-MIXED-MHA", "B8x2K-MHA"]
sa = sum(med["main"].get(k, 0) for k in keys); sb = sum(med["apwg"].get(k, 1e9) for k in keys)
print("FASTER", "apwg" if sb <= 0.995 * sa else "main")
PY
cat $R/ab-summary.txt
for v in main apwg; do PYTHONPATH=$T/$v/python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; echo "rc=$?" >> $R/dump-$v.log; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-apwg.pt > $R/compare-apwg.log 2>&1; echo "rc=$?" >> $R/compare-apwg.log
rm -f $R/dump-*.pt; mark compare; pack
# apwg's checks
mkdir -p build; cp $T/apwg/bin/* build/
PYTHONPATH=$T/apwg/python timeout 120 python3 -m pytest -q tests/python -p no:cacheprovider -k "fused or Fused or decays or harmless" > $R/pytest-apwg.log 2>&1; echo "rc=$?" >> $R/pytest-apwg.log
mark pytest-apwg; pack
CASES=fused-v128-mha-rand40,fused-v128-strong-rand70,fused-v128-fewstrong-rand70,fused-v128-many-mha-rand70,fused-v128-unordered-300,fused-persistent-1x200,fused-persistent-long-60,fault-g-fused-v128,fault-values-fused-v128,fault-cu-fused-v128,fused-mha-rand20,fused-pair-fewstrong-300+129+17+1
GDN2_COMMIT=apwg SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-apwg SANITIZE_TIMEOUT=70 timeout 210 bash scripts/gpu_check.sh sanitize > $R/sanitize-apwg.log 2>&1; echo "rc=$?" >> $R/sanitize-apwg.log
mark sanitize-apwg; pack
ok=1
grep -q "^rc=0" $R/pytest-apwg.log || ok=0
grep -q "^rc=0" $R/sanitize-apwg.log || ok=0
C=main; [ $ok = 1 ] && grep -q "^FASTER apwg" $R/ab-summary.txt && C=apwg
echo "checks_ok=$ok chosen $C" >> $R/times.log
cp $T/$C/bin/* build/
(cd $T/$C && GDN2_COMMIT=$C timeout 70 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-$C > $R/full-$C.log 2>&1; echo "rc=$?" >> $R/full-$C.log)
mark full-$C; pack
L=$(( $(left) - 5 )); [ $L -gt 200 ] && L=200
[ $L -gt 40 ] && { PYTHONPATH=$T/$C/python timeout $L python3 -m pytest -q tests/python -p no:cacheprovider > $R/pytest-all-$C.log 2>&1; echo "rc=$?" >> $R/pytest-all-$C.log; mark pytest-all-$C; pack; }
L=$(( $(left) - 3 ))
[ $L -gt 40 ] && { GDN2_COMMIT=$C SANITIZE_TOOLS="memcheck synccheck racecheck" OUT=$R/sanall-$C SANITIZE_TIMEOUT=$(( L / 4 )) timeout $L bash scripts/gpu_check.sh example sanitize > $R/sanall-$C.log 2>&1; echo "rc=$?" >> $R/sanall-$C.log; mark sanall-$C; pack; }
cat $R/times.log; cat $R/ab-summary.txt; tail -n 6 $R/compare-apwg.log
grep -h "compute-sanitizer\|receipt" $R/sanitize-apwg.log $R/sanall-$C.log 2>/dev/null; tail -n 3 $R/pytest-apwg.log; tail -n 2 $R/pytest-all-$C.log 2>/dev/null
grep '^| ' $R/full-$C/results.md 2>/dev/null | cut -c1-150 | head -16
pack
