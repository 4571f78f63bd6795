#!/bin/bash
# Session of 2026-12-07 from 20:45, a call for an H200 (main's owed table). Main 853f99e's build
# (python/gdn2/*.so, build-land/gdn2_copy_rate carried; tools_tmp/wheels for FLA 0.6.0);
# bench/results moved out. Run with a timeout of about 590 s.
#  1. gdn2_copy_rate; 2. main's whole table with the hint, no FLA;
#  3. FLA on the canonical rows in the same process as ours, until t = 420 s;
#  4. the GPU tests with what is left (they ran on an H100 earlier in the session).
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
R=$OUT/p; mkdir -p $R
pack() { tar czf $OUT/p.tgz -C $OUT p; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
timeout 60 ./build-land/gdn2_copy_rate > $R/copy-rate.md 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/copy-rate.md; pack
GDN2_COMMIT=853f99e PYTHONPATH=python timeout 150 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/full-hint.log; pack
grep -E '^\| ' $R/full-hint/results.md | cut -c1-200
L=$(( 420 - ($(date +%s) - t0) ))
if [ $L -gt 40 ]; then
  pip install --no-deps --no-index --target /tmp/site tools_tmp/wheels/*.whl > $R/fla-install.log 2>&1
  GDN2_COMMIT=853f99e PYTHONPATH=python:/tmp/site timeout $L python3 bench/bench.py --quick --max-seqlen --out $R/canonical-fla > $R/canonical-fla.log 2>&1
  echo "fla rc=$? t=$(( $(date +%s) - t0 ))" | tee -a $R/canonical-fla.log
fi
pack; grep -E "ours|FLA" $R/canonical-fla.log | head -12
L=$(( 570 - ($(date +%s) - t0) ))
if [ $L -gt 40 ]; then
  PYTHONPATH=python timeout $L python3 -m pytest -q -p no:cacheprovider -rs tests/python/*_gpu.py > $R/pytest.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/pytest.log
fi
pack; tail -3 $R/pytest.log 2>/dev/null
echo "done t=$(( $(date +%s) - t0 ))"
