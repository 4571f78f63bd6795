#!/bin/bash
# Call 3 of 2026-12-05: the refitted build fh2k (fused-template + kAuto refit; kernels as fh2b,
# validated in call 2): routing tests, bench without and with the max_seqlen hint, the short
# crossover (auto's picks), the stress run, the full pytest, then fla_compat against FLA itself.
# Carry: tools_tmp/c28 (fh2k.tar.xz), tools_tmp/site (FLA 0.6.0), tools_tmp/scripts.
set -u
B=${B:-fh2k}
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
tar xJf $T/c28/$B.tar.xz -C $T
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
git log --oneline -1 > $R/tree.txt; git status --short >> $R/tree.txt; echo "build $B: $(cat $T/$B/commit)" >> $R/tree.txt
[ -f $T/$B/python/gdn2/libgdn2_torch.so ] || { echo "no build $B" > $R/FATAL; pack; exit 1; }
mkdir -p build && cp $T/$B/bin/* build/ && cp $T/$B/python/gdn2/* python/gdn2/
md5sum python/gdn2/*.so build/gdn2_* >> $R/tree.txt
timeout 90 python3 -m pytest tests/python/test_forward_gpu.py -q -k "auto or algorithm or max_seqlen" -p no:cacheprovider > $R/pytest-auto.log 2>&1; echo "rc=$?" >> $R/pytest-auto.log
mark pytest-auto; tail -2 $R/pytest-auto.log
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log
mark bench
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/bench-hint > $R/bench-hint.log 2>&1; echo "rc=$?" >> $R/bench-hint.log
mark bench-hint
timeout 60 python3 bench/algorithm_crossover.py --replays 20 --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
PYTHONPATH=python timeout 150 python3 tests/stress/stress.py --out $R/stress.json > $R/stress.log 2>&1; echo "rc=$?" >> $R/stress.log
mark stress; tail -2 $R/stress.log
timeout 170 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
mark pytest; tail -3 $R/pytest.log
left=$(( 585 - ($(date +%s) - t0) ))
[ $left -gt 30 ] && { PYTHONPATH=$T/site timeout $left python3 -m pytest tests/python/test_fla_compat_gpu.py -q -rs -p no:cacheprovider > $R/fla-compat.log 2>&1; echo "rc=$?" >> $R/fla-compat.log; }
mark fla-compat; tail -3 $R/fla-compat.log
cat $R/times.log
