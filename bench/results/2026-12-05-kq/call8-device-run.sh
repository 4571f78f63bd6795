#!/bin/bash
# Call 8: two small changes on main 2361ab5 (v): dv = D in a layout that each consumer thread reads
# as eight float4s (16 float2 loads before), wa = one arrival per warp on every barrier of the
# fused path (elected lane after __syncwarp; 32 per warp before), dvwa = both. Outputs bit for bit
# against v, an A/B of the fused rows (two rounds, hint), then dvwa's fused and bad-input tests and
# racecheck and synccheck on the matrix's fused cases.
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
for V in v dv wa dvwa; do
  use $V; PYTHONPATH=python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
for V in dv wa dvwa; do
  python3 bench/outputs_bitwise.py compare $R/dump-v.pt $R/dump-$V.pt > $R/compare-$V.log 2>&1; echo "rc=$?" >> $R/compare-$V.log
done
rm -f $R/dump-*.pt
mark bitwise
ROWS=S1,S3,N64-MIXED,B8x2K,B4x4K
for round in 1 2; do
  for V in v dv wa dvwa; do
    use $V
    timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows $ROWS --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
mkdir -p build; cp $T/dvwa/bin/* build/; use dvwa
L=$(cap 300 90); [ $L -gt 30 ] && { timeout $L python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider -k "fused or one_launch or canonical or harmless or inconsistent or auto" > $R/pytest-dvwa.log 2>&1; echo "rc=$?" >> $R/pytest-dvwa.log; mark pytest-dvwa; }
FUSED=$(./build/gdn2_sanitize_matrix --list 2>/dev/null | grep -o 'fused[^ ]*\|fault-[a-z]*-fused[^ ]*\|auto-device-fused[^ ]*' | sort -u | tr '\n' ',' | sed 's/,$//')
L=$(cap 400 80); [ $L -gt 30 ] && { SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$FUSED" OUT=$R/san-dvwa SANITIZE_TIMEOUT=60 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize-dvwa.log 2>&1; echo "rc=$?" >> $R/sanitize-dvwa.log; pkill -f compute-sanitizer; mark san-dvwa; }
tail -qn 1 $R/compare-*.log; tail -n 1 $R/pytest-dvwa.log; grep -h "compute-sanitizer" $R/sanitize-dvwa.log; cat $R/times.log
