#!/bin/bash
# Session 2026-12-06 from 08:34, call 5: main f9a4837 (package sw: both changes of this session
# landed) validated as a whole: every GPU test, memcheck over the whole sanitizer matrix, racecheck
# and synccheck over the device-choice and one-item cases, the stress run.
# Carry: tar czf tools_tmp/c5.tgz -C tools_tmp sw s5 ; command: tar xzf tools_tmp/c5.tgz -C tools_tmp && bash tools_tmp/s5/call5.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-420} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
use sw
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all
tail -n 3 $R/pytest-all.log; pack
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck" OUT=$R/san-mem SANITIZE_TIMEOUT=90 timeout 100 bash scripts/gpu_check.sh sanitize > $R/sanitize-mem.log 2>&1; echo "rc=$?" >> $R/sanitize-mem.log; mark sanitize-mem
MX=auto-device-fused-40x75,auto-device-chunked-40,rec-auto-mha-T32,fused-auto-mha-T64,fused-v128-one-item-4097x1,fused-gvapair-one-item-257x128,mha-T512,fault-cu-overlapped
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san-race SANITIZE_TIMEOUT=60 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize-race.log 2>&1; echo "rc=$?" >> $R/sanitize-race.log; pkill -f compute-sanitizer; mark sanitize-race
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" $R/san-*/*.log 2>/dev/null | sort | uniq -c; pack
L=$(( $(left) - 5 )); [ $L -gt 20 ] && { OUT=$R/stress STRESS_ARGS="--launches 20000 --graph-replays 2000" timeout $L bash scripts/gpu_check.sh stress > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log; mark stress; tail -n 4 $R/stress.log; }
cat $R/times.log; pack
