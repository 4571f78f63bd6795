#!/bin/bash
# Session of 2026-12-07 from 10:15, never run (no H200 started): main 3f4d0a3 (3089a63's kernels) on an H200, the issue's
# GPU: the whole table with the hint and the accuracy check, FLA 0.6.0 row by row in the same
# process as ours, then the GPU tests with what time is left. On any other GPU it runs nothing.
# Carry: python/gdn2/*.so (build-land at 3f4d0a3), tools_tmp/wheels; bench/results moved out.
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
R=$OUT/h; mkdir -p $R
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/h.tgz -C $OUT h; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
cat $R/gpu.txt
grep -q H200 $R/gpu.txt || { echo "not an H200: nothing run"; exit 0; }
C=${C:-3f4d0a3}  # the commit the results name (the caller's C where given)
GDN2_COMMIT=$C PYTHONPATH=python timeout 120 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log; mark full-hint; pack
pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
for row in S1 S2 S3 S4 S5 B8x2K-MHA N64-MIXED-MHA B4x4K-MHA B8x2K-GVA2 B4x4K-GVA2 N64-MIXED-GVA2 L32K-MHA L32K-GVA2; do
  L=$(( $(left) - 150 )); [ $L -lt 30 ] && break
  PYTHONPATH=python:/tmp/site GDN2_COMMIT=$C timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log; mark fla-$row; pack
done
L=$(( $(left) - 10 ))
if [ $L -gt 60 ]; then
  PYTHONPATH=python timeout $L python3 -m pytest -q -p no:cacheprovider -rs tests/python/*_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
fi
pack
cat $R/times.log; tail -3 $R/pytest.log 2>/dev/null
grep -E '^\| ' $R/full-hint/results.md | cut -c1-220
