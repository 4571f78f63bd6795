#!/bin/bash
# Prepared in the session of 2026-12-07 from 23:28 (a form cut to 150 s was called and got no machine);
# main's owed table on an H200. Carry python/gdn2/_eager.cpython-312-x86_64-linux-gnu.so,
# python/gdn2/libgdn2_torch.so, build-land/gdn2_copy_rate (main's build) and tools_tmp/wheels
# (FLA 0.6.0); bench/results moved out; copy this to bench/results/x/run.sh and run
# `COMMIT=<main's short hash> bash bench/results/x/run.sh` with a timeout of about 590 s.
# Off an H200 it stops after nvidia-smi (main's H100 table is this folder's call2).
#  1. gdn2_copy_rate; 2. main's whole table with the hint, no FLA (about 30 s);
#  3. the GPU tests (about 125 s on an H100); 4. FLA on the canonical rows in the same process as
#  ours, until t = 570 s (its Triton compiles take most of it).
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
R=$OUT/p; mkdir -p $R
pack() { tar czf $OUT/p.tgz -C $OUT p; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
grep -q H200 $R/gpu.txt || exit 3
timeout 60 ./build-land/gdn2_copy_rate > $R/copy-rate.md 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/copy-rate.md; pack
GDN2_COMMIT=$COMMIT PYTHONPATH=python timeout 120 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/full-hint.log; pack
grep -E '^\| ' $R/full-hint/results.md | cut -c1-200
PYTHONPATH=python timeout 200 python3 -m pytest -q -p no:cacheprovider -rs tests/python/*_gpu.py > $R/pytest.log 2>&1; echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/pytest.log
pack; tail -n 3 $R/pytest.log
L=$(( 570 - ($(date +%s) - t0) ))
if [ $L -gt 40 ]; then
  pip install --no-deps --no-index --target /tmp/site tools_tmp/wheels/*.whl > $R/fla-install.log 2>&1
  GDN2_COMMIT=$COMMIT PYTHONPATH=python:/tmp/site timeout $L python3 bench/bench.py --quick --max-seqlen --out $R/canonical-fla > $R/canonical-fla.log 2>&1
  echo "fla rc=$? t=$(( $(date +%s) - t0 ))" | tee -a $R/canonical-fla.log
fi
pack; grep -E "ours|FLA" $R/canonical-fla.log | head -12
echo "done t=$(( $(date +%s) - t0 ))"
