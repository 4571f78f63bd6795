#!/bin/bash
# Next call (built, not run: the session's device time ran out), against v (main's fused kernels):
#   sf   = the slot's full barrier split into stored (the producer's part) and solved (the
#          solver's), so that the consumers' first product runs while the solver forms T and P
#          (sf-split-full.patch, branch fused-split-full);
#   ke   = the producer forms Kend's column before its wait for the slot (ke-kend-first.patch,
#          branch fused-ke);
#   sfke = both (sfke-split-and-kend-first.patch, branch fused-sfke).
# Carry tools_tmp/v, sf, ke, sfke, pv, psf, psfke (p*: the role probe, apply_probe_roles.py).
# Outputs bit for bit, role timelines, an A/B of every row (two rounds, hint), sfke's fused and
# bad-input tests, racecheck and synccheck on the matrix's fused cases.
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
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in v sf ke sfke; do
  use $V; PYTHONPATH=python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
for V in sf ke sfke; do
  python3 bench/outputs_bitwise.py compare $R/dump-v.pt $R/dump-$V.pt > $R/compare-$V.log 2>&1; echo "rc=$?" >> $R/compare-$V.log
done
rm -f $R/dump-*.pt
for V in pv psf psfke; do
  use $V; PYTHONPATH=python timeout 60 python3 bench/results/2026-12-05-kq/role_timeline.py > $R/roles-$V.log 2>&1; echo "rc=$?" >> $R/roles-$V.log
done
mark bitwise-roles
for round in 1 2; do
  for V in v sf ke sfke; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
mkdir -p build; cp $T/sfke/bin/* build/; use sfke
L=$(cap 300 90); [ $L -gt 30 ] && { timeout $L python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider -k "fused or one_launch or canonical or harmless or inconsistent or auto" > $R/pytest-sfke.log 2>&1; echo "rc=$?" >> $R/pytest-sfke.log; mark pytest-sfke; }
FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
L=$(cap 400 80); [ $L -gt 30 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-sfke SANITIZE_TIMEOUT=60 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-sfke.log 2>&1; echo "rc=$?" >> $R/sanitize-sfke.log; pkill -f compute-sanitizer; mark san-sfke; }
tail -n 1 $R/compare-*.log $R/pytest-sfke.log; grep -h "per block\|==" $R/roles-*.log; grep -h "compute-sanitizer" $R/sanitize-sfke.log; cat $R/times.log
