#!/usr/bin/env bash
# run on the device from the repository root, the builds in tools_tmp/<version> (carry ["tools_tmp"])
CHECKS=0 BASE=sb VARIANTS="sbt" GATE_ROWS=S1,S2,S5,L32K ROUNDS=2 TIMELINE_ROWS="S2" bash scripts/device_ab.sh
