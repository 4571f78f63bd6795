#!/bin/bash
# The session of 2026-12-07 from 20:45 ran its calls through this, from bench/results/x/ with
# bench/results moved out of the checkout: table.sh = ../2026-12-07-multicast-h100/next-call-device-run.sh,
# ol.sh = call1-device-run.sh. Carry: python/gdn2/*.so, build-land/gdn2_copy_rate, tools_tmp/wheels
# (table.sh) and tools_tmp/ol.tgz (ol.sh).
# On an H200: main's owed table (table.sh); on an H100: the ol A/B (ol.sh). WHICH=table|ol forces one.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "gpu: $name"
w=${WHICH:-}; [ -z "$w" ] && { echo "$name" | grep -q H200 && w=table || w=ol; }
echo "running $w"; bash bench/results/x/$w.sh
