#!/bin/bash
# Written after call 4, not run (too little device time was left): pair_barrier_race_probe.cu
# under racecheck, modes 0-3, and once without a tool (its values against the serial replay).
# About 20 s on a warm machine. Command (nothing to carry; nvcc builds it there):
#   bash bench/results/2026-12-06-pair-ksplit/probe-device-run.sh
set -u
D=$(dirname "$0"); R=${OUT:-/tmp/out}/probe; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt" 2>&1
compute-sanitizer --version > "$R/sanitizer-version.txt" 2>&1
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o "$R/probe" "$D/pair_barrier_race_probe.cu" > "$R/build.log" 2>&1 || { cat "$R/build.log"; exit 1; }
for m in 0 1 2 3; do
  "$R/probe" $m > "$R/plain-$m.log" 2>&1
  timeout 60 compute-sanitizer --tool racecheck --racecheck-report all "$R/probe" $m > "$R/racecheck-$m.log" 2>&1
  echo "mode $m: $(tail -n 1 "$R/plain-$m.log"); racecheck: $(grep -h 'RACECHECK SUMMARY' "$R/racecheck-$m.log")"
done | tee "$R/summary.txt"
