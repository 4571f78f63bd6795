#!/bin/bash
# The next session's first call (prepared in the session of 2026-12-07): ab13/main = main 3a70f3a's
# build (qd); qdx = qd + the exact path's solver waits for the slot only before its P stores (in the
# 128-channel form and the pair form; the GVA pair as before); qdxe = qdx + the verdict as the index
# of the last exact block (Smem::exact_block: no store on the blocks that are not exact)
# (bench/results/2026-12-07-vote-and-consumer-chain/qdx.patch, qdxe.patch, against qd).
# 0. the exact blocks of every row's inputs (count_exact_blocks.py); 1. outputs main vs qdx, qdxe
# (expected bit for bit); 2. two rounds main/qdx/qdxe; 3. the pick of qdx and qdxe (the lower
# geometric mean over the rows against main): racecheck, memcheck and synccheck over eleven fused
# cases.
# Package: tar czf tools_tmp/c29.tgz -C tools_tmp ab13 s ; command:
#   tar xzf tools_tmp/c29.tgz -C tools_tmp && DEADLINE=200 bash tools_tmp/s/next14.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-380} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab13
V="main qdx qdxe"
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; [ -d $T/$1/bin ] && cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
PYTHONPATH=$T/main/python timeout 60 python3 bench/results/2026-12-07-vote-and-consumer-chain/count_exact_blocks.py > $R/exact-blocks.log 2>&1; echo "rc=$?" >> $R/exact-blocks.log
mark exact-blocks; pack
for v in main qdx qdxe; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
for v in qdx qdxe; do python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-$v.pt > $R/compare-$v.log 2>&1; echo "rc=$?" >> $R/compare-$v.log; done
rm -f $R/dump-*.pt; mark compare; pack
for k in 1 2; do
  for v in $V; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
PICK=$(python3 - "$R" <<'PY'
import json, math, statistics, sys
R = sys.argv[1]
def med(v):
    xs = {}
    for k in (1, 2):
        try:
            for r in json.load(open(f"{R}/ab-{v}{k}/results.json"))["rows"]:
                xs.setdefault(r["row"], []).append(r["graph_us"])
        except Exception:
            pass
    return {row: statistics.median(x) for row, x in xs.items()}
base = med("main")
def geo(v):
    m = med(v)
    if not m or set(m) != set(base):
        return float("inf")
    return math.exp(sum(math.log(m[r] / base[r]) for r in base) / len(base))
print(min(["qdx", "qdxe"], key=geo))
PY
)
echo "pick $PICK" >> $R/times.log
use $PICK
CASES=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-gvapair-300+129+17+1+300,fused-gvapair-strong-300+129+17+1+300,fused-v128-mha-rand40,fused-v128-strong-rand70,fused-persistent-mha-rand70,fused-v128-gva2-34x40,fused-mha-rand20,fault-g-fused,fault-g-fused-v128
L=$(( $(left) - 3 )); [ $L -gt 100 ] && L=100
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck memcheck synccheck" SANITIZE_MATRIX_ARGS=--only=$CASES OUT=$R/san-$PICK SANITIZE_TIMEOUT=$L timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-$PICK.log 2>&1; echo "rc=$?" >> $R/sanitize-$PICK.log
mark sanitize-$PICK; pack
cat $R/times.log; cat $R/exact-blocks.log; grep -h "compute-sanitizer\|rc=\|PASS\|FAIL" $R/racecheck-*.log $R/sanitize-*.log 2>/dev/null | tail -12; tail -n 2 $R/compare-*.log $R/pytest-*.log 2>/dev/null
for v in $V; do for k in 1 2; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
grep '^| [SBLN]' $R/full-$PICK/results.md 2>/dev/null | awk -F'|' '{printf "%s %s %s %s\n", $2,$6,$7,$12}'
pack
