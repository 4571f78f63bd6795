#!/bin/bash
# Session of 2026-12-07 from 17:14, call 4: the last try, with 254 s of device time left (calls 1
# to 3 never started a machine). Carry: tools_tmp/c15.tgz (as call 2), build-land/gdn2_copy_rate;
# bench/results moved out.
#  1. bench/copy_rate.cu;
#  2. mc's first run with the accuracy check (its clusters on S4, S2, S5, chunked), then main and mc
#     alternating without it, graph and event times.
set -u
t0=$(date +%s)
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/r.tgz -C $OUT r; }
tar xzf tools_tmp/c15.tgz -C tools_tmp || exit 2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
timeout 30 ./build-land/gdn2_copy_rate > $R/copy-rate.md 2>&1; echo "rc=$?" >> $R/copy-rate.md; cat $R/copy-rate.md; pack
k=0
for v in mc main mc main; do
  k=$((k + 1)); [ $(( $(date +%s) - t0 )) -lt 140 ] || break
  acc=--no-accuracy; [ $k = 1 ] && acc=
  (cd tools_tmp/ab1/$v && GDN2_COMMIT=$v PYTHONPATH=python timeout 45 python3 bench/bench.py --no-fla --no-chart $acc \
     --rows S4,S2,S5 --max-seqlen --algorithm chunked --out $R/$v$k > $R/$v$k.log 2>&1); echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $R/$v$k.log
  tail -1 $R/$v$k.log; grep -E '^\| (S2|S4|S5)' $R/$v$k/results.md 2>/dev/null | cut -c1-160; pack
done
echo "done t=$(( $(date +%s) - t0 ))"
