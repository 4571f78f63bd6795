#!/bin/bash
# Session 2026-12-06 from 08:34, call 2: main 554fb9c (package ub) against branch uniform-wg (package
# uw: the 32-channel pass's warpgroup index by a broadcast, so that its state role's Kend^T wgmma
# descriptors are uniform: no R2UR in the chunk loop). The chunked rows, three rounds alternating;
# the outputs bit for bit; the GPU tests of the forward path and pools; sanitizers on chunked cases.
# Carry: tar czf tools_tmp/c2.tgz -C tools_tmp ub uw s2 ; command: tar xzf tools_tmp/c2.tgz -C tools_tmp && bash tools_tmp/s2/call2.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in ub uw; do use $b
  timeout 80 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S2,S4,S5,L32K --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 60 python3 bench/algorithm_crossover.py --set long --algorithms chunked --shapes 2x1024-hv16,2x4096-hv16,4x1024-hv32 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in ub uw; do use $b; PYTHONPATH=python timeout 60 python3 bench/outputs_bitwise.py dump $R/bits-$b.pt > $R/bits-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/bits-ub.pt $R/bits-uw.pt > $R/bits-compare.log 2>&1; echo "rc=$?" >> $R/bits-compare.log; rm -f $R/bits-*.pt; mark bitwise
cat $R/bits-compare.log | tail -3
use uw
timeout 150 python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_state_pool_gpu.py tests/python/test_bad_input_gpu.py -q -p no:cacheprovider > $R/pytest-uw.log 2>&1; echo "rc=$?" >> $R/pytest-uw.log; mark pytest-uw
tail -n 3 $R/pytest-uw.log; pack
MX=mha-T1280,mha-T512,fault-cu-overlapped,gva4-rand12,auto-device-chunked-40,mha-T512-pool,gva2-rand70-pool-bad-index
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|case(s) run" $R/san/*.log 2>/dev/null | sort | uniq -c
cat $R/times.log; pack
