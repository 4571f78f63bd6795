#!/bin/bash
# Prepared in the session of 2026-12-08 from 00:55 and called six times there: no machine started
# (README.md here). Main's owed table on an H200 (if the machine is one), then the A/B of peel0
# (peel0.patch: the persistent 128-channel form's block 0 peeled where the state is loaded) against
# main, peel0's GPU tests and its sanitizers.
# Before the call (README.md, "How to run it"): main's build in python/gdn2 and build-land; peel0's
# build packaged in tools_tmp/v/peel0 (python/gdn2 with its libraries, bench/*.py with the patch's
# outputs_bitwise.py, bin/gdn2_sanitize_matrix); bench/results moved out of the checkout but for
# 2026-12-05-nvidia-h200-fused-template/call1/bench-cula/results.json (N64's lengths); this file
# copied to bench/results/x/run.sh. Carry python/gdn2/*.so, build-land/gdn2_copy_rate, tools_tmp/v.
# `COMMIT=<main> bash bench/results/x/run.sh`, timeout about 590 s.
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
R=$OUT/p; mkdir -p $R
pack() { tar czf $OUT/p.tgz -C $OUT p; }
mark() { echo "$1 t=$(( $(date +%s) - t0 ))" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
P=$PWD/tools_tmp/v/peel0
# 1. main's table (H200 only: main's H100 table is bench/results/2026-12-07-main-h100/)
if grep -q H200 $R/gpu.txt; then
  timeout 60 ./build-land/gdn2_copy_rate > $R/copy-rate.md 2>&1; echo "rc=$?" >> $R/copy-rate.md
  GDN2_COMMIT=$COMMIT PYTHONPATH=python timeout 120 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log
  mark "table done"
  grep -E '^\| ' $R/full-hint/results.md | cut -c1-120
fi
# 2. outputs bit for bit (main against peel0), then the A/B: 4 rounds alternating, state_pool.py
#    (initial states: peel0's loop) and bench.py (no initial state: the loop it must leave alone).
PYTHONPATH=python timeout 90 python3 $P/bench/outputs_bitwise.py dump $R/dump-main.pt > $R/dump-main.log 2>&1
PYTHONPATH=$P/python timeout 90 python3 $P/bench/outputs_bitwise.py dump $R/dump-peel0.pt > $R/dump-peel0.log 2>&1
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-peel0.pt > $R/compare-peel0.log 2>&1; echo "rc=$?" >> $R/compare-peel0.log
rm -f $R/dump-*.pt; tail -n 3 $R/compare-peel0.log; mark "bitwise done"
ROWS=S3-MHA-PACKED-T4096,N64-MIXED-MHA,B8x2K-MHA
for k in 1 2 3 4; do
  for v in main peel0; do
    if [ $v = main ]; then D=$PWD; else D=$P; fi
    (cd $D && PYTHONPATH=$D/python timeout 60 python3 bench/state_pool.py --rows $ROWS --out $R/sp-$v$k > $R/sp-$v$k.log 2>&1)
    (cd $D && GDN2_COMMIT=$v PYTHONPATH=$D/python timeout 60 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen --rows $ROWS --out $R/b-$v$k > $R/b-$v$k.log 2>&1)
    mark "$v$k done"
  done
done
grep -h "pooled" $R/sp-*.log | head -30
# 3. peel0's GPU tests (its libraries over main's in python/gdn2; the package is main fd8a583 plus
#    the patch, so they also cover main's binding changes since 4167703) and sanitizers
cp $P/python/gdn2/*.so python/gdn2/
PYTHONPATH=python timeout 170 python3 -m pytest -q -p no:cacheprovider -rs -x tests/python/*_gpu.py tests/python/test_ops_on_meta_tensors.py > $R/pytest-peel0.log 2>&1; echo "rc=$?" >> $R/pytest-peel0.log
tail -n 3 $R/pytest-peel0.log; mark "pytest done"
CASES=fused-persistent-1x200,fused-persistent-1x300,fused-persistent-long-60,fused-persistent-mha-rand70-pool,fused-persistent-mha-rand70-pool-bf16,fused-persistent-mha-rand70-pool-bad-index,fused-v128-strong-rand70,fused-v128-fewstrong-rand70,fused-v128-many-mha-rand70
for tool in racecheck memcheck synccheck; do
  L=$(( 585 - ($(date +%s) - t0) )); [ $L -lt 20 ] && break
  timeout $L compute-sanitizer --tool $tool --error-exitcode 9 $P/bin/gdn2_sanitize_matrix --only=$CASES > $R/sanitize-$tool.log 2>&1; echo "rc=$?" >> $R/sanitize-$tool.log
  tail -n 2 $R/sanitize-$tool.log; mark "$tool done"
done
echo "done t=$(( $(date +%s) - t0 ))"
