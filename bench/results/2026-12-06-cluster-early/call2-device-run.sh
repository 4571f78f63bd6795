#!/bin/bash
# Session 2026-12-06 from 11:06, call 2: sfin (main 89e0ffc), scf (cluster-early 037df69: a CTA
# barrier before the cluster wait) and scs (the same early arrive; the pair form's consumers write
# sm.state themselves, behind a barrier of their warpgroup, and no CTA barrier): A/B three rounds;
# scs bit for bit against sfin; racecheck and synccheck over the pair cases on scs; the whole
# pytest on scs; the long crossover set on scs; racecheck over the 33 matrix cases call 1 did not reach.
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for round in 1 2 3; do for b in sfin scf scs; do use $b
  timeout 30 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,B4x4K-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 30 python3 bench/algorithm_crossover.py --algorithms fused --shapes 1x64-hv16,1x256-hv16,2x512-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
for b in sfin scs; do use $b; timeout 40 env PYTHONPATH=python python3 bench/outputs_bitwise.py dump $R/out-$b.pt > $R/bitwise-$b.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/out-sfin.pt $R/out-scs.pt > $R/bitwise.log 2>&1; echo "rc=$?" >> $R/bitwise.log; rm -f $R/out-*.pt; mark bitwise; pack
use scs
MX=fused-auto-mha-T64,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fused-pair-300+129+17+1-pool,fused-pair-300+129+17+1-pool-bad-index,fused-pair-300+129+17+1-pool-bf16,fault-cu-fused,fault-g-fused,fault-values-fused,fused-mha-rand20,fused-gva2-8x40,fused-gva4-T200,auto-device-fused-40x75,fused-gva3-65+63+1-validate
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=60 timeout 130 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize; pack
timeout 200 python3 -m pytest tests/python -q -p no:cacheprovider -rs > $R/pytest-all.log 2>&1; echo "rc=$?" >> $R/pytest-all.log; mark pytest-all; pack
timeout 40 python3 bench/algorithm_crossover.py --set long --out $R/crossover-long > $R/crossover-long.log 2>&1; echo "rc=$?" >> $R/crossover-long.log; mark crossover-long; pack
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" SANITIZE_MATRIX_ARGS="--skip=mha-T1,mha-T1280,mha-T512,gva3-T65,gva3-65+63+1-validate,gva2-1x32,gva2-rand100,gva4-rand15,mha-rand40,mha-rand30,gva4-rand12,gva2-rand20,gva2-rand70,fault-cu,fault-cu-extreme,fault-cu-extreme-ordered,fault-cu-overlapped,fault-g,fault-values,rec-auto-mha-T32,rec-auto-gva2-1x32,rec-gva3-65+63+1-validate,rec-mha-rand20,rec-gva4-T200,fault-cu-rec,fault-cu-extreme-rec,fault-g-rec,fault-values-rec,fused-auto-mha-T64,fused-gva2-8x40,fused-gva3-65+63+1-validate,fused-mha-rand20,fused-gva4-T200,fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1,fault-cu-fused,fault-g-fused,fault-values-fused,fused-v128-mha-rand40,fused-v128-gva4-T200,fused-v128-gva2-34x40,fused-gvapair-strong-300+129+17+1+300,fault-cu-fused-gvapair,fault-cu-fused-gvapair-persistent,fused-v128-mha-T33,fault-cu-fused-v128,fault-g-fused-v128,fault-values-fused-v128,fused-v128-many-mha-rand70,fused-v128-strong-rand70,fused-v128-unordered-300,auto-device-fused-40x75,auto-device-chunked-40,fault-cu-fused-v128-many,fused-persistent-1x200,fused-persistent-1x300,fused-persistent-long-60,fused-v128-one-item-4097x1,fused-gvapair-one-item-257x128,fault-cu-fused-v128-one-item" OUT=$R/san-race SANITIZE_TIMEOUT=150 timeout 160 bash scripts/gpu_check.sh sanitize > $R/sanitize-race.log 2>&1; echo "rc=$?" >> $R/sanitize-race.log; pkill -f compute-sanitizer; mark racecheck-rest
tail -n 2 $R/pytest-all.log; tail -n 2 $R/bitwise.log; grep -h "SUMMARY\|case(s) run" $R/san*/*.log | sort | uniq -c; cat $R/times.log; pack
