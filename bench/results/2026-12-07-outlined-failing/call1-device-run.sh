#!/bin/bash
# Prepared in the session of 2026-12-07 from 20:45 while the device's loans were paused; run in call1-h100/. Carry:
# tools_tmp/ol.tgz (ab1/main = main's kernels, built at 9afead8; ab1/ol = cc4c6cd with ol.patch);
# bench/results moved out. Run with a timeout of about 560 s.
#  1. A/B main -> ol, three rounds, the rows of the persistent 128-channel form (S3,
#     N64-MIXED-MHA, B8x2K-MHA), with the hint; every output compared bit for bit (device_ab.sh);
#  2. ol under racecheck, memcheck and synccheck on the matrix's persistent 128-channel cases
#     with failing channels (few and many) and a decay fault;
#  3. the fused GPU tests on ol, as time allows.
set -u
t0=$(date +%s)
left() { echo $(( 540 - ($(date +%s) - t0) )); }
tar xzf tools_tmp/ol.tgz -C tools_tmp || exit 2
mkdir -p $OUT/r
BASE=main VARIANTS="ol" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=${ROUNDS:-3} LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
  ROWS=S3,N64-MIXED-MHA,B8x2K-MHA BENCH_ARGS="--max-seqlen" GATE_ROWS=S3,N64-MIXED-MHA,B8x2K-MHA \
  bash scripts/device_ab.sh > $OUT/ab.log 2>&1
echo "ab rc=$? t=$(( $(date +%s) - t0 ))"
cat $OUT/r/medians.txt 2>/dev/null; tail -5 $OUT/r/compare-ol.log 2>/dev/null
CASES=fused-v128-fewstrong-rand70,fused-v128-strong-rand70,fault-g-fused-v128,fused-persistent-mha-rand70
for tool in racecheck memcheck synccheck; do
  L=$(( $(left) - 120 )); [ $L -gt 70 ] && L=70; [ $L -gt 20 ] || break
  extra=; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout $L compute-sanitizer --tool $tool $extra --error-exitcode 9 tools_tmp/ab1/ol/bin/gdn2_sanitize_matrix \
    --only=$CASES > $OUT/r/san-ol-$tool.log 2>&1
  echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $OUT/r/san-ol-$tool.log; tail -3 $OUT/r/san-ol-$tool.log
done
tar czf $OUT/r.tgz -C $OUT r
L=$(( $(left) - 5 ))
if [ $L -gt 40 ]; then
  cp tools_tmp/ab1/ol/python/gdn2/*.so python/gdn2/
  PYTHONPATH=python timeout $L python3 -m pytest -q -p no:cacheprovider tests/python -k "fused or Fused or decays or harmless" \
    > $OUT/r/pytest-ol.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $OUT/r/pytest-ol.log; tail -3 $OUT/r/pytest-ol.log
fi
tar czf $OUT/r.tgz -C $OUT r
echo "done t=$(( $(date +%s) - t0 ))"
