#!/bin/bash
# Session of 2026-12-07 from 17:14, call 2 (call 1 never started). Carry: tools_tmp/c15.tgz
# (ab1/main = be92dc4's build; ab1/mc = the same with every factor group of the 64-channel pass
# multicast in clusters of a head's two CTAs, and of the 32-channel pass in clusters of a head's
# four), build-land/gdn2_copy_rate; bench/results moved out.
#  1. bench/copy_rate.cu: how fast a chunk's factor group lands, plain and multicast (EXTRA);
#  2. A/B main -> mc, two rounds, rows that run the 64-channel pass (S4; B4x4K-MHA chunked) and the
#     32-channel pass (S2, S5, L32K-MHA);
#  3. mc's clusters under the sanitizers (racecheck, synccheck, memcheck), the 32- and 64-channel cases;
#  4. Nsight Compute on main's and mc's 64-channel pass (S4), main's 32-channel pass (S2), as time allows.
set -u
t0=$(date +%s)
tar xzf tools_tmp/c15.tgz -C tools_tmp || exit 2
mkdir -p $OUT/r
# mc's clusters first on their own (a hang in a new protocol would otherwise eat the call's time)
PYTHONPATH=tools_tmp/ab1/mc/python timeout 60 python3 tools_tmp/ab1/mc/bench/ncu_rows.py S4,S2,S5 > $OUT/r/mc-smoke.log 2>&1
smoke=$?; echo "mc smoke rc=$smoke t=$(( $(date +%s) - t0 ))" | tee -a $OUT/r/mc-smoke.log
if [ $smoke -ne 0 ]; then
  timeout 60 ./build-land/gdn2_copy_rate > $OUT/r/copy-rate.md 2>&1; cat $OUT/r/copy-rate.md
  VARIANTS_OK=0
else
  VARIANTS_OK=1
fi
[ $VARIANTS_OK = 1 ] && BASE=main VARIANTS="mc" AB_TOOLS=$PWD/tools_tmp/ab1 ROUNDS=${ROUNDS:-2} LENGTHS=0 TIMELINE_ROWS= CHECKS=0 \
  ROWS=S4,B4x4K-MHA,S2,S5,L32K-MHA BENCH_ARGS="--max-seqlen --algorithm chunked" GATE_ROWS=S4,B4x4K-MHA,S2,S5,L32K-MHA \
  EXTRA="timeout 60 ./build-land/gdn2_copy_rate > \$R/copy-rate.md 2>&1; cat \$R/copy-rate.md" \
  bash scripts/device_ab.sh > $OUT/ab.log 2>&1
echo "ab rc=$? t=$(( $(date +%s) - t0 ))"
cat $OUT/r/extra.log; cat $OUT/r/medians.txt 2>/dev/null; tail -5 $OUT/r/compare-mc.log 2>/dev/null
#  3. mc's clusters under the sanitizers, the 32- and 64-channel cases, as time allows.
for tool in racecheck synccheck memcheck; do
  [ $VARIANTS_OK = 1 ] && [ $(( $(date +%s) - t0 )) -lt 250 ] || break
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 tools_tmp/ab1/mc/bin/gdn2_sanitize_matrix \
    --only=mha-T1,mha-T1280,mha-T512,gva3-T65,gva4-rand15,mha-rand30,gva4-rand12,gva2-rand20 > $OUT/r/san-mc-$tool.log 2>&1
  echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $OUT/r/san-mc-$tool.log; tail -2 $OUT/r/san-mc-$tool.log
done
P=$OUT/r/prof; mkdir -p $P
prof() {  # version row kernel-regex
  timeout 100 ncu --clock-control none -k regex:$3 --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --import-source no -o $P/$1-$2 env PYTHONPATH=tools_tmp/ab1/$1/python python3 tools_tmp/ab1/$1/bench/ncu_rows.py $2 > $P/ncu-$1-$2.log 2>&1
  echo "rc=$? t=$(( $(date +%s) - t0 ))" >> $P/ncu-$1-$2.log
  ncu -i $P/$1-$2.ncu-rep --page details --csv > $P/details-$1-$2.csv 2>> $P/ncu-$1-$2.log
  ncu -i $P/$1-$2.ncu-rep --page raw --csv > $P/raw-$1-$2.csv 2>> $P/ncu-$1-$2.log
  ncu -i $P/$1-$2.ncu-rep --page source --csv --print-source sass > $P/source-$1-$2.csv 2>> $P/ncu-$1-$2.log
  python3 bench/ncu_segments.py $P/source-$1-$2.csv > $P/segments-$1-$2.txt 2>&1
  gzip -f $P/source-$1-$2.csv $P/raw-$1-$2.csv; rm -f $P/$1-$2.ncu-rep
  tar czf $OUT/r.tgz -C $OUT r
  echo "== $1 $2"; tail -1 $P/ncu-$1-$2.log
  grep -E '"(Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|DRAM Throughput|Compute \(SM\) Throughput|Duration|Elapsed Cycles|No Eligible|Issued Warp Per Scheduler|L2 Hit Rate|Mem Busy|Mem Pipes Busy)"' $P/details-$1-$2.csv | awk -F'","' '{print $(NF-3), $(NF-2), $(NF-1)}' | head -16
}
[ $(( $(date +%s) - t0 )) -lt 300 ] && prof main S4 state_pass_kernel
[ $VARIANTS_OK = 1 ] && [ $(( $(date +%s) - t0 )) -lt 340 ] && prof mc S4 state_pass_kernel
[ $(( $(date +%s) - t0 )) -lt 370 ] && prof main S2 state_pass_kernel
tar czf $OUT/r.tgz -C $OUT r
echo "done t=$(( $(date +%s) - t0 ))"
