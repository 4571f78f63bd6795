#!/bin/bash
# For the next session with a device, after next-device-run.sh (not run). Validates main's host
# changes of the session of 2026-12-05 from 20:30 (705c93c to de94600: the workspace sized by the call's plan,
# every launch by cudaLaunchKernelEx, the setup and fla_compat changes; no kernel's SASS changed)
# on main's build m from tools_tmp/b.tgz (built at de94600, as t and t2): the GPU tests (with
# test_workspace_follows_the_plan and fla_compat's bf16-state and host-offsets tests), the example,
# and memcheck and initcheck over the whole sanitizer matrix, whose workspace is now exactly
# forward_workspace_bytes(args): the flag words alone for the recurrent and fused cases, so that
# memcheck sees any access past them; and bench/probe_mixed_forms.py (S3's long sequence in the
# pair form beside the rest in the 128-channel form), and gdn2_host_timing. Run from a clean main (no patch applied).
# Carry tools_tmp/b.tgz; command `tar xzf tools_tmp/b.tgz -C tools_tmp && bash <this script>`.
set -u
R=$OUT/r2; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
t0=$(date +%s)
pack() { tar czf $OUT/r2.tgz.tmp -C $OUT r2 && mv $OUT/r2.tgz.tmp $OUT/r2.tgz; }
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
left() { echo $(( $1 - ($(date +%s) - t0) )); }
cap() { local l=$(left $1); [ $l -gt $2 ] && l=$2; echo $l; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
cp $T/m/python/gdn2/*.so python/gdn2/; mkdir -p build; cp $T/m/bin/* build/
L=$(cap 200 150); timeout $L python3 -m pytest tests/python -q -rs -p no:cacheprovider --deselect tests/python/test_wheel_gpu.py > $R/pytest.log 2>&1; echo "rc=$?" >> $R/pytest.log; mark pytest
timeout 20 ./build/gdn2_example > $R/example.log 2>&1; echo "rc=$?" >> $R/example.log
timeout 60 ./build/gdn2_host_timing > $R/host_timing.log 2>&1; echo "rc=$?" >> $R/host_timing.log
# The probe of S3 with its long sequence in the pair form beside the rest (docs/performance.md,
# "S3's chain, and both fused forms in one launch"): no kernel change, m's kernels.
L=$(cap 280 60); PYTHONPATH=python timeout $L python3 bench/probe_mixed_forms.py --out $R/probe > $R/probe.log 2>&1; echo "rc=$?" >> $R/probe.log; mark probe
L=$(cap 560 280); SANITIZE_PROGRAMS="gdn2_example gdn2_sanitize_matrix" SANITIZE_TOOLS="memcheck initcheck" OUT=$R/san SANITIZE_TIMEOUT=160 timeout $L bash scripts/gpu_check.sh sanitize > $R/sanitize.log 2>&1; echo "rc=$?" >> $R/sanitize.log; pkill -f compute-sanitizer; mark sanitize
tail -n 3 $R/pytest.log; tail -n 2 $R/example.log; head -n 6 $R/host_timing.log; cat $R/probe.log; grep -h "compute-sanitizer\|ERROR\|error" $R/sanitize.log | tail -8; cat $R/gpu.txt $R/times.log
