#!/bin/bash
# Session 2026-12-04b, call 3: W = T Kb in phase 1's solver, Kb staged in shared memory by cp.async, U = T (w*v) - W S in phase 2 (working tree)
# against HEAD's build (tools_tmp/base): pytest; lengths and rows, 2 rounds; profile and phase-1 timeline of the new build.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
(PYTHONPATH=python timeout 100 python3 -m pytest tests/python -q -rs -x > $R/pytest.log 2>&1; echo rc=$? >> $R/pytest.log)
echo "pytest done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
ROWS=S2,S4,S5,L32K-MHA,B8x2K,N64-MIXED-GVA2
for k in 1 2; do
  for v in base:$T/base new:$PWD; do
    n=${v%%:*}; d=${v#*:}
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/sequence_lengths.py $n$k >> $R/lengths.jsonl 2>> $R/lengths.err)
    (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/bench.py --no-fla --no-accuracy --rows $ROWS --out $R/$n$k > $R/$n$k.log 2>&1)
    echo "$n$k done $(( $(date +%s) - t0 ))s" >> $R/times.log
  done
  pack
done
PYTHONPATH=python timeout 45 python3 bench/profile_kernels.py > $R/profile-new.log 2>&1
timeout 20 ./build-timeline/gdn2_phase1_timeline > $R/timeline.log 2>&1
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
