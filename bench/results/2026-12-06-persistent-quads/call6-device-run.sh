#!/bin/bash
# Session 2026-12-06 from 06:41, call 6: the landing build's kAuto tests after the AUTO table's fix
# (32 x 1 token of 16 heads with the hint: fused since the refit).
set -u
R=$OUT/n; mkdir -p $R
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
use land2
timeout 150 python3 -m pytest tests/python/test_forward_gpu.py -q -p no:cacheprovider -k "auto or choice" > $R/pytest-auto.log 2>&1; echo "rc=$?" >> $R/pytest-auto.log
tail -n 3 $R/pytest-auto.log
tar czf $OUT/n.tgz -C $OUT n
