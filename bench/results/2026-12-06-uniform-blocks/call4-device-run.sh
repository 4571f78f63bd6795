#!/bin/bash
# Session 2026-12-06 from 08:34, call 4: main 15a164f (package uw) against branch single-waiter
# (package sw): under kAuto's choice on the device, the kernels of the path that does not run
# leave at once but for their first CTA, which waits for the kernel before it. The rows without
# the hint (where the device chooses), three rounds alternating; hinted rows as a control; the
# forward tests (the new chained-calls test included); sanitizers on the device-choice cases.
# Carry: tar czf tools_tmp/c4.tgz -C tools_tmp uw sw s4 ; command: tar xzf tools_tmp/c4.tgz -C tools_tmp && bash tools_tmp/s4/call4.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in uw sw; do use $b
  timeout 60 python3 bench/bench.py --no-fla --no-accuracy --rows S3,N64,B8x2K,B4x4K --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S2,S3 --out $R/hint-$b-$round > $R/hint-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use sw
timeout 150 python3 -m pytest tests/python/test_forward_gpu.py -q -p no:cacheprovider > $R/pytest-sw.log 2>&1; echo "rc=$?" >> $R/pytest-sw.log; mark pytest-sw
tail -n 3 $R/pytest-sw.log; pack
MX=auto-device-fused-40x75,auto-device-chunked-40,rec-auto-mha-T32,rec-auto-gva2-1x32,fused-auto-mha-T64
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c
cat $R/times.log; pack
