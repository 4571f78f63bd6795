#!/bin/bash
# Session 2026-12-04b, call 4: W = T Kb in single TF32 (call 3's version without T's low part):
# pytest; lengths and rows against 8da1eb3's build, 1 round; accuracy of the canonical rows; timeline.
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
for v in base:$T/base new:$PWD; do
  n=${v%%:*}; d=${v#*:}
  (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/sequence_lengths.py ${n}1 >> $R/lengths.jsonl 2>> $R/lengths.err)
  (cd $d && PYTHONPATH=$d/python timeout 70 python3 bench/bench.py --no-fla --no-accuracy --rows $ROWS --out $R/${n}1 > $R/${n}1.log 2>&1)
  echo "${n}1 done $(( $(date +%s) - t0 ))s" >> $R/times.log
done
pack
PYTHONPATH=python timeout 60 python3 bench/bench.py --no-fla --quick --iters 20 --warmup 5 --out $R/acc-new > $R/acc-new.log 2>&1
timeout 20 ./build-timeline/gdn2_phase1_timeline > $R/timeline.log 2>&1
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
