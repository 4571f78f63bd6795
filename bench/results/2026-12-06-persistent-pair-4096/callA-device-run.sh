#!/bin/bash
# Session 2026-12-06 05:41, call A: the three unmeasured branches against main (tests of each
# branch's new path from the branch's own tests, sanitizers on the new concurrency code, a
# 2-round same-call A/B), then FLA's canonical table beside main's.
# Carry tools_tmp/ab.tgz; command: tar xzf tools_tmp/ab.tgz -C tools_tmp && bash tools_tmp/s/callA.sh
set -u
R=$OUT/a; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
pack() { tar czf $OUT/a.tgz -C $OUT a; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
use() { cp tools_tmp/$1/python/gdn2/*.so tools_tmp/$1/python/gdn2/*.py python/gdn2/; mkdir -p build; cp tools_tmp/$1/bin/* build/; }
btest() {  # branch, log name, timeout, pytest args...
  local b=$1 n=$2 to=$3; shift 3; use $b
  timeout $to python3 -m pytest -q -x -p no:cacheprovider "$@" > $R/pytest-$n.log 2>&1; echo "rc=$?" >> $R/pytest-$n.log
  mark pytest-$n; echo "$n: $(tail -n 2 $R/pytest-$n.log | tr '\n' ' ')"; pack
}
T=tools_tmp
btest gvapair gvapair 110 $T/gvapair/tests/python/test_forward_gpu.py $T/gvapair/tests/python/test_state_pool_gpu.py -k "persistent or gva_pair or pair"
btest p4096 p4096 90 $T/p4096/tests/python/test_forward_gpu.py $T/p4096/tests/python/test_bad_input_gpu.py -k "persistent or many_sequences or longest_first"
btest binit binit 90 $T/binit/tests/python/test_forward_gpu.py -k "fused or canonical or persistent"
# sanitizers: the pair's persistent cases (gvapair), the persistent cases (p4096)
MXG=fused-gvapair-strong-300+129+17+1+300,fault-cu-fused-gvapair-persistent,fused-gvapair-300+129+17+1+300-pool,fused-gvapair-300+129+17+1+300-pool-bad-index
MXP=fused-persistent-1x200,fused-persistent-long-60,fused-v128-many-mha-rand70,fault-cu-fused-v128-many,fused-persistent-mha-rand70-pool-bad-index
for p in gvapair:$MXG p4096:$MXP binit:$MXP; do b=${p%%:*}; use $b
  SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="memcheck racecheck synccheck" SANITIZE_MATRIX_ARGS="--only=${p#*:}" OUT=$R/san-$b SANITIZE_TIMEOUT=40 timeout 100 bash scripts/gpu_check.sh sanitize > $R/sanitize-$b.log 2>&1; echo "rc=$?" >> $R/sanitize-$b.log; pkill -f compute-sanitizer; mark sanitize-$b
  echo "san $b:"; grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $R/sanitize-$b.log $R/san-$b/*.log 2>/dev/null | sort | uniq -c; pack
done
for round in 1 2; do for b in main gvapair binit p4096; do use $b
  timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --rows S1,S3,N64-MIXED-GVA2,B8x2K-GVA2,N64-MIXED-MHA --out $R/bench-$b-$round > $R/bench-$b-$round.log 2>&1
  timeout 40 python3 bench/algorithm_crossover.py --algorithms fused,recurrent --shapes 512x1-hv16,2048x1-hv16,128x1-hv16 --out $R/cross-$b-$round > $R/cross-$b-$round.log 2>&1
  mark ab-$b-$round
done; pack; done
use main
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $T/wheels/*.whl > $R/pip.log 2>&1; echo "rc=$?" >> $R/pip.log
PYTHONPATH=/tmp/site timeout 150 python3 bench/bench.py --max-seqlen --out $R/full-fla > $R/full-fla.log 2>&1; echo "rc=$?" >> $R/full-fla.log; mark full-fla
tail -n 18 $R/full-fla.log; cat $R/times.log; pack
