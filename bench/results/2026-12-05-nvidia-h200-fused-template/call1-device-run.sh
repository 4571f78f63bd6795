#!/bin/bash
# The branch fused-heads on the device (the tree must be the branch: its tests):
#   fh1 = the fused path as one template with two forms (64 value channels per CTA where the
#         N Hv 2 CTAs fit in a wave, else 128 = f35's structure), one CTA per item;
#   fh2 = fh1 with the v128 form's copy and staging release before the inverse (as f36);
#   fh3 = fh1 made persistent: grid min(items, SMs), each CTA several items (snake, longest
#         first), one stream of blocks per CTA; v128 registers 96/112/152/152 (branch HEAD);
#   fh4 = fh3 launched with programmatic dependent launch (tools_tmp/fh4.patch; as f33 for f27);
#   fh5 = fh3 + an L2 bulk prefetch of the next item's initial state (tools_tmp/fh5.patch).
#   1. probes (fused forced, graph) of f27 (main), fh3, fh4, fh5 twice; fh1, fh2, f35 once;
#   2. validation of fh3: pytest -k "fused or one_launch or auto", then the full pytest and the
#      example; if fh3's quick pytest fails, of fh1 (the sanitizers and the stress run are in
#      v25, on the refitted build, whose kernels are these: the time here goes to the crossovers);
#   3. bench.py (auto) with cuLA PR #113's kernel beside it (--cula: tools_tmp/c26/cula, made by
#      bench/cula_export.py; tvm_ffi from the carried wheel), the crossover (short) and the long
#      crossover with the validated build; the canonical rows with accuracy (ours and cuLA's);
#   4. the long crossover with what time is left (it saves after every shape); then, if any
#      time is left, one probe each of v21's levers on f27: f31, f28, f29, f30.
# Carry: tools_tmp/c21 (f27, f35 builds), tools_tmp/c24 (fh1-fh5 tarballs), tools_tmp/c26 (cuLA's
# exported kernels, apache-tvm-ffi and typing-extensions wheels), tools_tmp/scripts.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
tar xJf $T/c21/builds.tar.xz -C $T
for b in fh1 fh2 fh3 fh4 fh5; do tar xJf $T/c24/$b.tar.xz -C $T; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $T/c26/*.whl > $R/pip.log 2>&1; echo "rc=$?" >> $R/pip.log
CULA="--cula $T/c26/cula"
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }  # never a truncated r.tgz
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
git log --oneline -1 > $R/tree.txt; git status --short >> $R/tree.txt
mkdir -p build
use() { cp $T/$1/bin/* build/ 2>/dev/null; cp $T/$1/python/gdn2/* python/gdn2/; }
use fh1  # _eager and the binaries; each probe below swaps libgdn2_torch.so (the kernels) only
for V in f27 fh3 fh4 fh5 fh1 fh2 f35 f27 fh3 fh4 fh5; do  # fh1, fh2, f35 once (context, not decisions)
  i=1; [ -f $R/probe-$V-1.log ] && i=2  # the log, not the folder: a failed first run keeps its log
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-$i PYTHONPATH=python timeout 40 python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-$i.log 2>&1; echo rc=$? >> $R/probe-$V-$i.log
  mark probe-$V-$i
done
table() {  # table BUILD...: fused forced graph times of every probe run of these builds, and their errors
python3 - "$R" "$@" <<'PY'
import json, os, sys
R, builds = sys.argv[1], sys.argv[2:]
runs = [f"{b}-{i}" for i in (1, 2) for b in builds]
d = {v: json.load(open(f"{R}/probe-{v}/probe.json")) for v in runs if os.path.exists(f"{R}/probe-{v}/probe.json")}
print("row", *d, "err(" + ", ".join(b for b in builds if f"{b}-1" in d) + ")")
for r in dict.fromkeys(r for x in d.values() for r in x):
    print(r, *[round(d[v].get(r, {}).get("fused", float("nan")), 1) for v in d],
          *[d[f"{b}-1"].get(r, {}).get("err_fused") for b in builds if f"{b}-1" in d])
PY
}
table f27 fh1 fh2 fh3 fh4 fh5 f35 > $R/table.txt
cat $R/table.txt
B=fh3
for cand in fh3 fh1; do
  use $cand
  timeout 70 python3 -m pytest tests/python/test_forward_gpu.py -q -x -k "fused or one_launch or auto" -p no:cacheprovider > $R/pytest-fused-$cand.log 2>&1; echo "rc=$?" >> $R/pytest-fused-$cand.log
  mark pytest-fused-$cand; tail -2 $R/pytest-fused-$cand.log
  if grep -q "^rc=0" $R/pytest-fused-$cand.log; then B=$cand; break; fi
done
grep -q "^rc=0" $R/pytest-fused-$B.log && echo $B > $R/validated-build.txt || echo "none (fh3 and fh1 failed; the rest runs on fh3)" > $R/validated-build.txt
use $B
if grep -q "^rc=0" $R/pytest-fused-$B.log; then
  timeout 30 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
  timeout 170 python3 -m pytest tests/python -q -rs -p no:cacheprovider > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log
  mark pytest; tail -3 $R/pytest.log
fi
# Ours alone first (a hang in cuLA's kernels, never run before, must not cost our rows), then with cuLA.
timeout 60 python3 bench/bench.py --no-fla --no-accuracy --out $R/bench > $R/bench.log 2>&1; echo "rc=$?" >> $R/bench.log
mark bench
PYTHONPATH=/tmp/site timeout 90 python3 bench/bench.py --no-fla --no-accuracy $CULA --out $R/bench-cula > $R/bench-cula.log 2>&1; echo "rc=$?" >> $R/bench-cula.log
mark bench-cula
PYTHONPATH=/tmp/site timeout 60 python3 bench/bench.py --quick --no-fla $CULA --out $R/bench-accuracy \
  > $R/bench-accuracy.log 2>&1; echo "rc=$?" >> $R/bench-accuracy.log
mark bench-accuracy
timeout 60 python3 bench/algorithm_crossover.py --replays 20 --out $R/crossover > $R/crossover.log 2>&1; echo "rc=$?" >> $R/crossover.log
mark crossover
# The long crossover feeds the kAuto refit (bench/fit_auto.py); it saves after every shape.
left=$(( 565 - ($(date +%s) - t0) ))
[ $left -gt 20 ] && { PYTHONPATH=python timeout $left python3 bench/algorithm_crossover.py --set long --replays 20 --out $R/crossover-long \
  > $R/crossover-long.log 2>&1; echo "rc=$?" >> $R/crossover-long.log; }
mark crossover-long
# With what time is left: v21's per-block levers, built on f27 (tools_tmp/c21), once each against
# this call's f27 probes: f31 (factors in place, three stages, no copy), f28 (the producer off the
# slot), f29 (three raw stages), f30 (f28 + f29).
for V in f31 f28 f29 f30; do
  left=$(( 582 - ($(date +%s) - t0) )); [ $left -lt 15 ] && break
  cp $T/$V/python/gdn2/libgdn2_torch.so python/gdn2/
  OUT=$R/probe-$V-1 PYTHONPATH=python timeout $(( left < 40 ? left : 40 )) python3 bench/results/2026-12-04-nvidia-h200-fused/fused_probe.py fused > $R/probe-$V-1.log 2>&1; echo rc=$? >> $R/probe-$V-1.log
  mark probe-$V-1
done
table f27 f31 f28 f29 f30 > $R/table-levers.txt
use $B  # leave the validated build in place (a warm machine's next call starts from it)
pack
cat $R/times.log
