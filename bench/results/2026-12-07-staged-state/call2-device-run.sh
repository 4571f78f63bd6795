#!/bin/bash
# Prepared in the session of 2026-12-07 from 21:41; not run (no machine started). Copy it to
# bench/results/x/run.sh with bench/results moved out; carry tools_tmp/spl.tgz (23 MB: ab1/main =
# main's kernels, built at 9afead8; ab1/sps = main with sps.patch, the timing probe; ab1/spl = main
# with spl.patch, the landable form; each made by tools_tmp/s/pkg.sh). Run with a timeout of about 560 s.
#  1. A/B main -> sps, spl, five alternating rounds, the persistent 128-channel form's rows, with
#     the hint; every output compared bit for bit with main's (spl's must be equal, final states too;
#     sps's final states are wrong by design);
#  2. spl under racecheck, memcheck and synccheck on the matrix's persistent 128-channel cases;
#  3. the fused GPU tests on spl (among them the persistent form's: 300 one-token sequences, staged;
#     400 sequences, past the staging's 320, direct), as time allows.
set -u
t0=$(date +%s)
left() { echo $(( 450 - ($(date +%s) - t0) )); }
tar xzf tools_tmp/spl.tgz -C tools_tmp || exit 2
mkdir -p $OUT/r
BASE=main VARIANTS="sps spl" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=${ROUNDS:-5} LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
  ROWS=S3,N64-MIXED-MHA,B8x2K-MHA BENCH_ARGS="--max-seqlen" GATE_ROWS=S3,N64-MIXED-MHA,B8x2K-MHA \
  bash scripts/device_ab.sh > $OUT/ab.log 2>&1
echo "ab rc=$? t=$(( $(date +%s) - t0 ))"
cat $OUT/r/medians.txt 2>/dev/null; tail -5 $OUT/r/compare-spl.log 2>/dev/null
CASES=fused-persistent-1x300,fused-persistent-long-60,fused-persistent-mha-rand70-pool,fused-persistent-mha-rand70-pool-bf16,fused-persistent-mha-rand70-pool-bad-index,fault-g-fused-v128,fused-v128-fewstrong-rand70
for tool in racecheck memcheck synccheck; do
  L=$(( $(left) - 150 )); [ $L -gt 70 ] && L=70; [ $L -gt 20 ] || break
  extra=; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout $L compute-sanitizer --tool $tool $extra --error-exitcode 9 tools_tmp/ab1/spl/bin/gdn2_sanitize_matrix \
    --only=$CASES > $OUT/r/san-spl-$tool.log 2>&1
  echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $OUT/r/san-spl-$tool.log; tail -3 $OUT/r/san-spl-$tool.log
done
tar czf $OUT/r.tgz -C $OUT r
L=$(( $(left) - 5 ))
if [ $L -gt 40 ]; then
  cp tools_tmp/ab1/spl/python/gdn2/*.so python/gdn2/
  PYTHONPATH=python timeout $L python3 -m pytest -q -p no:cacheprovider tests/python -k "fused or Fused or decays or harmless or pool" \
    > $OUT/r/pytest-spl.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $OUT/r/pytest-spl.log; tail -3 $OUT/r/pytest-spl.log
fi
tar czf $OUT/r.tgz -C $OUT r
echo "done t=$(( $(date +%s) - t0 ))"
