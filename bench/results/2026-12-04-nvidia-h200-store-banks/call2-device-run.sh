#!/usr/bin/env bash
# run on the device from the repository root, the builds in tools_tmp/<version> (carry ["tools_tmp"])
BASE=sb VARIANTS="oa ob poll" GATE_ROWS=S1,S2,S5,L32K ROUNDS=3 MAX_GEOMEAN=0.995 TIMELINE_ROWS="S2 L32K" bash scripts/device_ab.sh
