#!/bin/bash
# Session 2026-12-04 (third), call 4: bench/host_timing.cu with the launch variants (main's library).
set -u
R=$OUT/r; mkdir -p $R
for i in 1 2 3; do ./tools_tmp/ht/gdn2_host_timing > $R/host_timing-$i.log 2>&1; done
tar czf $OUT/r.tgz -C $OUT r
