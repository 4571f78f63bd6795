#!/bin/bash
# Session 2026-12-06 from 07:33, call 6: stp's whole GPU test suite and memcheck on two cases of the
# persistent forms within one round (the claims from g_no_claims), as the device budget allows.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
use stp
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck" SANITIZE_MATRIX_ARGS="--only=fused-v128-mha-rand40,fault-cu-fused-gvapair,fused-v128-gva4-T200" OUT=$R/san SANITIZE_TIMEOUT=30 timeout 35 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
grep -h "ERROR SUMMARY\|case(s) run" $R/san/*.log; pack
timeout 140 python3 -m pytest tests/python -q -p no:cacheprovider -x > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log
tail -n 3 $R/pytest-all.log; pack
