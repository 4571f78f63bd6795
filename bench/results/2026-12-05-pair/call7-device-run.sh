#!/bin/bash
# Call 7 (session of 2026-12-05 from 19:07, an H100). Before it, on the CPU: build main into
# tools_tmp/m/{python/gdn2,bin} (cmake --build build-torch; copy python/gdn2/*.so and
# build-torch/{gdn2_example,gdn2_sanitize_matrix,gdn2_tf32_rounding}), then apply
# s1-cluster-wait-split.patch, build it into tools_tmp/s1 the same way, revert; carry both as
# tools_tmp/b.tgz (`tar xzf tools_tmp/b.tgz -C tools_tmp && bash <this script>`).
# 1. The pair form's new tests on main (test_fused_pair_form, the matrix's fused-pair-* cases under
#    all four sanitizers), written in the session of 2026-12-05 from 18:15 without a device.
# 2. s1 (each thread waits for the cluster's first barrier only before its first remote operation)
#    against m: outputs bit for bit, S1 and the one-wave rows forced fused, two rounds.
# 3. kAuto's crossovers on m (`python3 bench/fit_auto.py r/crossover-*/crossover.json` afterwards,
#    on the CPU): its 64-channel fused estimate was fitted before the pair form (about 20% slower).
# 4. On an H200: the benchmark with the accuracy check, with and without the hint (README's table).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
use m; mkdir -p build; cp $T/m/bin/* build/
timeout 90 python3 -m pytest tests/python/test_forward_gpu.py -q -k pair -p no:cacheprovider > $R/pytest-pair.log 2>&1; echo "rc=$?" >> $R/pytest-pair.log; mark pytest-pair
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_MATRIX_ARGS="--only=fused-pair-300+129+17+1,fused-pair-strong-300+129+17+1" OUT=$R/san-pair SANITIZE_TIMEOUT=60 timeout 200 bash scripts/gpu_check.sh sanitize > $R/sanitize-pair.log 2>&1; echo "rc=$?" >> $R/sanitize-pair.log; pkill -f compute-sanitizer; mark sanitize-pair
for V in m s1; do
  use $V; PYTHONPATH=python timeout 40 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
python3 bench/outputs_bitwise.py compare $R/dump-m.pt $R/dump-s1.pt > $R/compare-s1.log 2>&1; echo "rc=$?" >> $R/compare-s1.log; rm -f $R/dump-*.pt; mark bitwise
for round in 1 2; do
  for V in m s1; do
    use $V
    timeout 40 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --algorithm fused --rows S1,S2,B4x4K-MHA --out $R/fu-$V-$round > $R/fu-$V-$round.log 2>&1; echo "rc=$?" >> $R/fu-$V-$round.log
  done
  mark fu-$round
done
use m
for S in long short; do
  timeout 80 python3 bench/algorithm_crossover.py --set $S --replays 20 --out $R/crossover-$S > $R/crossover-$S.log 2>&1; echo "rc=$?" >> $R/crossover-$S.log; mark crossover-$S
done
if grep -q H200 $R/gpu.txt; then
  timeout 90 python3 bench/bench.py --no-fla --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log; mark bench-hint
  timeout 90 python3 bench/bench.py --no-fla --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; mark bench
fi
tail -n 2 $R/pytest-pair.log; grep -h "compute-sanitizer" $R/sanitize-pair.log; tail -n 1 $R/compare-s1.log; cat $R/gpu.txt $R/times.log
