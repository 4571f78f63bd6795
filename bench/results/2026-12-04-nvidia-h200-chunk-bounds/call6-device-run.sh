#!/usr/bin/env bash
# Run on the lent H200 by the device tool (carry: tools_tmp), 2026-12-04; the versions in README.md.
CHECKS=0 BASE=m8 VARIANTS="p16c p16s" GATE_ROWS=S1,S2,S5,L32K ROUNDS=2 TIMELINE_ROWS="S2 L32K" bash scripts/device_ab.sh
