#!/bin/bash
# Session of 2026-12-07 from 04:49, the call after call 2 (next17.sh: fz and fw against main on an
# H200; fw's pytest subset and sanitizers there). ab17/main = main 3a70f3a's kernels, ab17/fw =
# fw.patch's build (the build landed: its fused kernels' SASS identical). 1. fw's whole table with
# the hint and accuracy; 2. two more rounds of main and fw; 3. the rest of pytest on fw.
# Package: tar czf tools_tmp/c35.tgz -C tools_tmp ab17 s ; command (repository root):
#   tar xzf tools_tmp/c35.tgz -C tools_tmp && DEADLINE=250 bash tools_tmp/s/next19.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-250} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab17
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
(cd $T/fw && GDN2_COMMIT=fw timeout 70 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-fw > $R/full-fw.log 2>&1; echo "rc=$?" >> $R/full-fw.log)
mark full-fw; pack
for k in 4 5; do
  for v in main fw; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
cp $T/fw/python/gdn2/*.so python/gdn2/
L=$(( $(left) - 3 ))
PYTHONPATH=python timeout $L python3 -m pytest -q tests/python -k "not (fused or Fused or decays or harmless)" > $R/pytest-rest-fw.log 2>&1; echo "rc=$?" >> $R/pytest-rest-fw.log
mark pytest-rest-fw; pack
cat $R/times.log; tail -n 3 $R/pytest-rest-fw.log; grep '^| ' $R/full-fw/results.md 2>/dev/null | head -20; tail -n 12 $R/full-fw.log
for v in main fw; do for k in 4 5; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
pack
