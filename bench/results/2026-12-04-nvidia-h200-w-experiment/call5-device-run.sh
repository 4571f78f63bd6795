#!/bin/bash
# Session 2026-12-04b, call 5: where the 32-channel pass's chain goes, timing-only probes of 8da1eb3's
# pass (experiment-chain-probes.patch; results of no-fence and one-mkend-copy are wrong):
# no-qgs (Out skips Qg S), no-fence (no proxy fence after the R, U and S stores),
# one-mkend-copy (M, Kend^T, gamma copied for the first chunk only). Lengths and S2, 2 rounds.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz -C $OUT r; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for k in 1 2; do
  for n in base no-qgs no-fence one-mkend-copy; do
    d=$T/$n
    (cd $d && PYTHONPATH=$d/python timeout 60 python3 bench/sequence_lengths.py $n$k >> $R/lengths.jsonl 2>> $R/lengths.err)
    (cd $d && PYTHONPATH=$d/python timeout 40 python3 bench/bench.py --no-fla --no-accuracy --rows S2 --out $R/$n$k > $R/$n$k.log 2>&1)
    echo "$n$k done $(( $(date +%s) - t0 ))s" >> $R/times.log
  done
  pack
done
echo "all done $(( $(date +%s) - t0 ))s" >> $R/times.log; pack
