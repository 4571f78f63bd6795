#!/usr/bin/env bash
# Run on the lent H200 by the device tool (carry: tools_tmp), 2026-12-04; the versions in README.md.
CHECKS=0 BASE=m8 VARIANTS="n1" GATE_ROWS=S1,S2,S5,L32K ROUNDS=2 TIMELINE_ROWS="S1" bash scripts/device_ab.sh > $OUT/ab.log 2>&1; mkdir -p build && cp tools_tmp/n1/bin/* build/ && cp tools_tmp/n1/python/gdn2/*.so python/gdn2/ && timeout 120 python3 -m pytest tests/python -q -rs > $OUT/r/pytest.log 2>&1; echo rc=$? >> $OUT/r/pytest.log
