#!/bin/bash
# Call 3: k3 = kq with three slots (and so four kq buffers), against f (main's kernels) and kq:
# outputs bit for bit (f against k3), the role timeline of k3 (pk3), an A/B of every row (f, kq,
# k3 alternating, two rounds, hint), then k3's fused and bad-input tests.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in f k3; do
  use $V; PYTHONPATH=python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-f.pt $R/dump-k3.pt > $R/compare-k3.log 2>&1; echo "rc=$?" >> $R/compare-k3.log
rm -f $R/dump-*.pt
use pk3; PYTHONPATH=python timeout 60 python3 bench/results/2026-12-05-kq/role_timeline.py > $R/roles-pk3.log 2>&1; echo "rc=$?" >> $R/roles-pk3.log
mark bitwise-roles
for round in 1 2; do
  for V in f kq k3; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
use k3
timeout 120 python3 -m pytest tests/python/test_forward_gpu.py tests/python/test_bad_input_gpu.py -q -rs -p no:cacheprovider -k "fused or one_launch or canonical or harmless or inconsistent or auto" > $R/pytest-k3.log 2>&1; echo "rc=$?" >> $R/pytest-k3.log; mark pytest-k3
tail -2 $R/compare-k3.log; grep -h "per block\|==\|last" $R/roles-pk3.log; tail -1 $R/pytest-k3.log; cat $R/times.log
