#!/bin/bash
# Session of 2026-12-06 from 20:03, call 1. On an H200 (issue 3's GPU; main's kernels bf18b9a have
# never run on one): main's whole table with the hint and accuracy, without the hint, then FLA 0.6.0
# row by row in the same process as ours (ab4/main's package), then the pair-ksplit-raw checks
# (next2.sh, recorded as ../2026-12-06-pair-ksplit/call1-device-run.sh) with what is left. On an
# H100: next2.sh alone.
# Carry: tar czf tools_tmp/cN.tgz -C tools_tmp ab4 s rp wheels ; command:
#   tar xzf tools_tmp/cN.tgz -C tools_tmp && DEADLINE=560 bash tools_tmp/s/next3.sh
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1)
if [[ "$gpu" == *H200* ]]; then
  R=$OUT/h; mkdir -p $R
  mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
  left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - t0) )); }
  pack() { tar czf $OUT/h.tgz -C $OUT h; }
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
  T=tools_tmp/ab4/main
  (cd $T && GDN2_COMMIT=2755d76 timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/full-hint > $R/full-hint.log 2>&1; echo "rc=$?" >> $R/full-hint.log); mark full-hint; pack
  (cd $T && GDN2_COMMIT=2755d76 timeout 40 python3 bench/bench.py --no-fla --no-accuracy --no-chart --out $R/nohint > $R/nohint.log 2>&1; echo "rc=$?" >> $R/nohint.log); mark nohint; pack
  pip install --no-index --no-deps --target /tmp/site tools_tmp/wheels/*.whl > $R/pip.log 2>&1
  for row in S2 S1 S3 S4 S5 L32K-MHA B4x4K-MHA B8x2K-MHA N64-MIXED-MHA L32K-GVA2 B4x4K-GVA2 B8x2K-GVA2 N64-MIXED-GVA2; do
    L=$(( $(left) - 150 )); [ $L -lt 30 ] && break
    (cd $T && PYTHONPATH=/tmp/site GDN2_COMMIT=2755d76 timeout $L python3 bench/bench.py --rows $row --iters 50 --warmup 10 --max-seqlen --no-chart --out $R/fla-$row > $R/fla-$row.log 2>&1; echo "rc=$?" >> $R/fla-$row.log); mark fla-$row; pack
  done
  cat $R/times.log; grep -h "rc=" $R/*.log | sort | uniq -c
  export DEADLINE=$(( $(left) ))
fi
bash tools_tmp/s/next2.sh
