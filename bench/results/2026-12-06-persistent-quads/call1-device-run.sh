#!/bin/bash
# For the next session (written 2026-12-06 ~06:55): one device call for the two branches built
# and not run in the session of 2026-12-06 from 05:41:
#   1. item-timeline (be874f4): the persistent forms' per-item timeline (gdn2_phase1_timeline built
#      with -DGDN2_PHASE1_TIMELINE=ON from that branch, in tools_tmp/timeline);
#   2. state-pairs (5c47af2): the fused consumers' state read/written two channels per access.
#      Package tools_tmp/spairs (python/gdn2 + bin + its tests); base: tools_tmp/final (main a853ec2; its
#      kernels: 5a16818 = a853ec2 in SASS). Rebuild both if main moved.
# Carry: tar czf tools_tmp/ab.tgz -C tools_tmp final spairs timeline s  (s: this script, copied there)
# Command: tar xzf tools_tmp/ab.tgz -C tools_tmp && bash tools_tmp/s/next-call.sh
set -u
R=$OUT/n; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/n.tgz -C $OUT n; }
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
timeout 120 tools_tmp/timeline/gdn2_phase1_timeline 64x256-fused 128x1-fused B8x2K-gva2-fused 64x256-gva2-fused B8x2K-fused S1-fused > $R/timeline.log 2>&1; echo "rc=$?" >> $R/timeline.log; mark timeline; pack
use spairs
timeout 150 python3 -m pytest tools_tmp/spairs/tests/python/test_forward_gpu.py tools_tmp/spairs/tests/python/test_state_pool_gpu.py -q -x -p no:cacheprovider -k "fused or persistent or pool or bf16 or initial" > $R/pytest-spairs.log 2>&1; echo "rc=$?" >> $R/pytest-spairs.log; mark pytest; tail -2 $R/pytest-spairs.log; pack
MX=fused-persistent-1x200,fused-persistent-mha-rand70-pool-bf16,fused-gvapair-300+129+17+1+300-pool-bf16,fused-pair-300+129+17+1-pool-bf16
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck" SANITIZE_MATRIX_ARGS="--only=$MX" OUT=$R/san SANITIZE_TIMEOUT=40 timeout 80 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; pkill -f compute-sanitizer; mark sanitize
for round in 1 2; do for b in final spairs; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64,B8x2K,B4x4K --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused --shapes 128x1-hv16,512x1-hv16,128x1-hv64,128x1-hv16-h0,64x4-hv16-h0 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
cat $R/times.log; pack
