#!/bin/bash
# Call 2 of 2026-12-05: the branch fused-template (fh2's kernels: one CTA per item, v128 copy and
# release before the inverse; SASS identical to v24's fh2 probe build) validated, and the data of
# the kAuto refit measured with it:
#   1. example, pytest -k "fused or one_launch or auto", the full pytest;
#   2. the crossovers (short, then long: bench/fit_auto.py's input);
#   3. compute-sanitizer (matrix first, then the example; 4 tools each);
#   4. bench (auto, before the refit) if time is left.
# Carry: tools_tmp/c28 (fh2b.tar.xz), tools_tmp/scripts.
set -u
B=${B:-fh2b}
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
tar xJf $T/c28/$B.tar.xz -C $T
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
git log --oneline -1 > $R/tree.txt; git status --short >> $R/tree.txt; echo "build $B: $(cat $T/$B/commit)" >> $R/tree.txt
[ -f $T/$B/python/gdn2/libgdn2_torch.so ] && [ -x $T/$B/bin/gdn2_sanitize_matrix ] || { echo "no build $B" > $R/FATAL; pack; exit 1; }
mkdir -p build && cp $T/$B/bin/* build/ && cp $T/$B/python/gdn2/* python/gdn2/
md5sum python/gdn2/*.so build/gdn2_* >> $R/tree.txt
timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
timeout 70 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k "fused or one_launch or auto" -p no:cacheprovider > $R/pytest-fused.log 2>&1; echo "rc=$?" >> $R/pytest-fused.log
mark pytest-fused; tail -2 $R/pytest-fused.log
timeout 170 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest; tail -3 $R/pytest.log
timeout 60 python3 bench/algorithm_crossover.py --replays 20 --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
timeout 120 python3 bench/algorithm_crossover.py --set long --replays 20 --out $R/crossover-long > $R/crossover-long.log 2>&1; echo "rc=$?" >> $R/crossover-long.log
mark crossover-long
SANITIZE_PROGRAMS="gdn2_sanitize_matrix gdn2_example" OUT=$R/san SANITIZE_TIMEOUT=150 timeout 280 bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log
pkill -f compute-sanitizer 2>/dev/null; sleep 1
mark sanitize; tail -3 $R/sanitize.log
left=$(( 570 - ($(date +%s) - t0) ))
[ $left -gt 25 ] && { timeout $left python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log; }
mark bench
cat $R/times.log
