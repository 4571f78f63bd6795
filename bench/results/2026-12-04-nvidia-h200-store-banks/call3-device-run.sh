#!/usr/bin/env bash
# run on the device from the repository root, the builds in tools_tmp/<version> (carry ["tools_tmp"])
CHECKS=0 BASE=sb VARIANTS="ka kb" GATE_ROWS=S1,S2,S5,L32K ROUNDS=3 TIMELINE_ROWS="S2 L32K" bash scripts/device_ab.sh
for v in ka kb; do cp tools_tmp/$v/python/gdn2/*.so python/gdn2/; timeout 100 python3 -m pytest tests/python -q -x > $OUT/r/pytest-$v.log 2>&1; echo "rc=$?" >> $OUT/r/pytest-$v.log; done
