#!/bin/bash
# Prepared in the session of 2026-12-07 from 21:41; not run (no machine started). Copy to bench/results/x/run.sh. Carry: tools_tmp/sps.tgz
# (ab1/main = main's kernels, built at 9afead8; ab1/sps = 49fe336 with the spread staged-state
# probe), python/gdn2/*.so (main's), build-land/gdn2_copy_rate, tools_tmp/wheels (FLA 0.6.0);
# bench/results moved out. Run with a timeout of about 420 s.
#  1. A/B main -> sps, five rounds, the persistent 128-channel form's rows, with the hint
#     (sps's final states are wrong by design: timing only);
#  2. on an H200 only: main's whole table (gdn2_copy_rate, bench.py --no-fla --max-seqlen) and FLA
#     on the canonical rows in the same process as ours until t = 405 s.
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
tar xzf tools_tmp/sps.tgz -C tools_tmp || exit 2
mkdir -p $OUT/r
R=$OUT/p; mkdir -p $R
pack() { tar czf $OUT/p.tgz -C $OUT p r; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
BASE=main VARIANTS="sps" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=${ROUNDS:-5} LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
  ROWS=S3,N64-MIXED-MHA,B8x2K-MHA BENCH_ARGS="--max-seqlen" GATE_ROWS=S3,N64-MIXED-MHA,B8x2K-MHA \
  timeout 150 bash scripts/device_ab.sh > $OUT/r/ab.log 2>&1
echo "ab rc=$? t=$(( $(date +%s) - t0 ))"
cat $OUT/r/medians.txt 2>/dev/null; pack
grep -q H200 $R/gpu.txt || { echo "not an H200: stopped"; exit 0; }
timeout 60 ./build-land/gdn2_copy_rate > $R/copy-rate.md 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/copy-rate.md
GDN2_COMMIT=88d61f8 PYTHONPATH=python timeout 150 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/full-hint.log; pack
grep -E '^\| ' $R/full-hint/results.md | cut -c1-200
L=$(( 405 - ($(date +%s) - t0) ))
if [ $L -gt 40 ]; then
  pip install --no-deps --no-index --target /tmp/site tools_tmp/wheels/*.whl > $R/fla-install.log 2>&1
  GDN2_COMMIT=88d61f8 PYTHONPATH=python:/tmp/site timeout $L python3 bench/bench.py --quick --max-seqlen --out $R/canonical-fla > $R/canonical-fla.log 2>&1
  echo "fla rc=$? t=$(( $(date +%s) - t0 ))" | tee -a $R/canonical-fla.log
fi
pack; grep -E "ours|FLA" $R/canonical-fla.log | head -12
echo "done t=$(( $(date +%s) - t0 ))"
