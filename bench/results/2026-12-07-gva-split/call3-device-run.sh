#!/bin/bash
# Session of 2026-12-07 from 09:13, call 3: bound probes of the two-consumer forms' consumers
# (timing only, wrong results by design; branch probe-consumer, probe-consumer.patch here) against
# gs (3089a63's kernels): pwv, no w*v (GDN2_PROBE_NO_WV); pout, no output stores (GDN2_PROBE_NO_OUT);
# pcvt, the state's and R's and U's A fragments without the TF32 conversion (GDN2_PROBE_NO_CVT; its
# one-item kernels and the persistent 128-channel kernel spill, so it is read on the GVA-2 rows only).
# Carry: tar czf tools_tmp/c2.tgz -C tools_tmp ab1/gs ab1/pwv ab1/pout ab1/pcvt; bench/results moved out.
tar xzf tools_tmp/c2.tgz -C tools_tmp || exit 2
BASE=gs VARIANTS="pwv pout pcvt" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=4 LENGTHS=0 TIMELINE_ROWS= \
  ROWS=S3,N64-MIXED-MHA,B8x2K-MHA,N64-MIXED-GVA2,B8x2K-GVA2,B4x4K-GVA2 BENCH_ARGS=--max-seqlen \
  GATE_ROWS=N64-MIXED,B8x2K,B4x4K NUMERICS_CHANGE="pwv pout pcvt" CHECKS=0 bash scripts/device_ab.sh
cat "$OUT/r/times.log" "$OUT/r/medians.txt"
