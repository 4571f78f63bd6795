#!/bin/bash
# Call 3 (session of 2026-12-07): the range rule's vote by producer warp in the 128-channel MHA forms.
# ab11/main = main's build (bf18b9a's kernels); qd = call 1's qd; vwm = qd + in the 128-channel
# forms of one CTA (not the pair form, not the GVA pair) each producer warp votes alone
# (atomicMax of the block's index into Smem::exact_block, read by the solver after `formed`), the
# solver writes the decay factors over g on an exact block (decays_over_g, inside exact_ap);
# pnovote = call 1's probe. 1. outputs main vs vwm (expected bit for bit); 2. three rounds of
# main/qd/vwm/pnovote; 3. racecheck over the whole matrix on vwm; 4. memcheck, synccheck, initcheck
# and the example; 5. vwm's whole table with accuracy; 6. pytest.
# Package: tar czf tools_tmp/c26.tgz -C tools_tmp ab11 s ; command:
#   tar xzf tools_tmp/c26.tgz -C tools_tmp && DEADLINE=600 bash tools_tmp/s/next11.sh
set -u
R=$OUT/k; mkdir -p $R
export PYTHONUNBUFFERED=1
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; }
left() { echo $(( ${DEADLINE:-600} - ($(date +%s) - t0) )); }
pack() { tar czf $OUT/k.tgz -C $OUT k; }
T=tools_tmp/ab11
V="main qd vwm pnovote"
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; mkdir -p build; [ -d $T/$1/bin ] && cp $T/$1/bin/* build/; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total,power.limit --format=csv > $R/gpu.txt 2>&1
for v in main vwm; do PYTHONPATH=$T/$v/python timeout 60 python3 bench/outputs_bitwise.py dump $R/dump-$v.pt > $R/dump-$v.log 2>&1; done
python3 bench/outputs_bitwise.py compare $R/dump-main.pt $R/dump-vwm.pt > $R/compare-vwm.log 2>&1; echo "rc=$?" >> $R/compare-vwm.log
rm -f $R/dump-*.pt; mark compare; pack
for k in 1 2 3; do
  for v in $V; do
    (cd $T/$v && GDN2_COMMIT=$v timeout 45 python3 bench/bench.py --no-fla --no-accuracy --no-chart --max-seqlen \
      --rows S1,S3,B8x2K,N64,B4x4K --out $R/ab-$v$k > $R/ab-$v$k.log 2>&1; echo "rc=$?" >> $R/ab-$v$k.log)
    mark ab-$v$k; pack
  done
done
use vwm
SANITIZE_PROGRAMS=gdn2_sanitize_matrix SANITIZE_TOOLS="racecheck" OUT=$R/race-vwm SANITIZE_TIMEOUT=200 timeout 210 bash scripts/gpu_check.sh sanitize > $R/racecheck-vwm.log 2>&1; echo "rc=$?" >> $R/racecheck-vwm.log
mark racecheck-vwm; pack
SANITIZE_TOOLS="memcheck synccheck initcheck" OUT=$R/san-vwm SANITIZE_TIMEOUT=60 timeout 150 bash scripts/gpu_check.sh example sanitize > $R/sanitize-vwm.log 2>&1; echo "rc=$?" >> $R/sanitize-vwm.log
mark sanitize-vwm; pack
L=$(( $(left) - 10 )); [ $L -gt 60 ] && { (cd $T/vwm && GDN2_COMMIT=vwm timeout $L python3 bench/bench.py --no-fla --max-seqlen --out $R/full-vwm > $R/full-vwm.log 2>&1; echo "rc=$?" >> $R/full-vwm.log); mark full-vwm; pack; }
L=$(( $(left) - 10 )); [ $L -gt 60 ] && { timeout $L python3 -m pytest tests/python -q -x -p no:cacheprovider > $R/pytest-vwm.log 2>&1; echo "rc=$?" >> $R/pytest-vwm.log; mark pytest-vwm; pack; }
cat $R/times.log; grep -h "compute-sanitizer\|rc=\|PASS\|FAIL" $R/racecheck-*.log $R/sanitize-*.log 2>/dev/null | tail -12; tail -n 2 $R/compare-*.log $R/pytest-*.log $R/full-vwm.log 2>/dev/null
for v in $V; do for k in 1 2 3; do echo "$v$k: $(grep '^| [SBN]' $R/ab-$v$k/results.md 2>/dev/null | awk -F'|' '{printf "%s %s; ", $2,$7}')"; done; done
grep '^| [SBLN]' $R/full-vwm/results.md 2>/dev/null | awk -F'|' '{printf "%s %s %s %s\n", $2,$6,$7,$12}'
pack
