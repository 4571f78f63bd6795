#!/bin/bash
# Session 2026-12-04 (fourth), call 6: per-kernel times (bench/profile_kernels.py) of n1 and h4 on the
# rows of the register-state passes.
set -u
R=$OUT/r; mkdir -p $R
T=$PWD/tools_tmp
for v in n1 h4; do
  (cd $T/$v && PYTHONPATH=$T/$v/python timeout 100 python3 bench/profile_kernels.py --rows S4,B4x4K,N64-MIXED-GVA2,B8x2K > $R/profile-$v.log 2>&1; echo "rc=$?" >> $R/profile-$v.log)
done
tar czf $OUT/r.tgz -C $OUT r
