#!/bin/bash
# SM clock and power under the fused v128 rows (nvidia-smi every 50 ms during graph replays), ncu's
# cycles vs time for the fused kernel on B8x2K, then fla_compat's comparison with FLA (long timeout).
# Carry: tools_tmp/c28, tools_tmp/site, tools_tmp/scripts.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
tar xJf $T/c28/fh2k.tar.xz -C $T
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi -q -d POWER,CLOCK,TEMPERATURE,PERFORMANCE > $R/smi-q.txt 2>&1
git log --oneline -1 > $R/tree.txt; echo "fh2k: $(cat $T/fh2k/commit)" >> $R/tree.txt
mkdir -p build
cp $T/fh2k/bin/* build/; cp $T/fh2k/python/gdn2/*.so python/gdn2/
Q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active
nvidia-smi --query-gpu=$Q --format=csv -c 1 > $R/smi-check.txt 2>&1 || Q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active
TZ=UTC nvidia-smi --query-gpu=$Q --format=csv -lms 50 > $R/smi.csv 2>&1 & SMI=$!
OUT=$R PYTHONPATH=python timeout 120 python3 $T/scripts/clock_probe.py > $R/clock.log 2>&1; echo "rc=$?" >> $R/clock.log
kill $SMI 2>/dev/null; sleep 0.2
python3 $T/scripts/clock_join.py $R/clock_cases.json $R/smi.csv > $R/clock-join.txt 2>&1
mark clock; cat $R/clock-join.txt
cat > /tmp/b8.py <<'PY'
import sys; sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
from bench import scale_rows
row = {r.name: r for r in scale_rows(testing.Row, testing.random_lengths)}[sys.argv[1]]
inp = testing.row_inputs(row, gen_device="cuda")
for _ in range(3):
    gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                    initial_state=inp["initial_state"], output_final_state=row.final_state, algorithm="fused")
torch.cuda.synchronize()
PY
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,smsp__cycles_active.avg
for row in B8x2K-MHA N64-MIXED-MHA; do
  timeout 90 ncu --clock-control none -k regex:fused_kernel --launch-skip 2 --launch-count 1 --metrics $M python3 /tmp/b8.py $row > $R/ncu-$row.txt 2>&1; echo "rc=$?" >> $R/ncu-$row.txt
  mark ncu-$row
done
PYTHONPATH=$T/site timeout 240 python3 -m pytest tests/python/test_fla_compat_gpu.py -q -rs -p no:cacheprovider --durations=5 > $R/fla-compat.log 2>&1; echo "rc=$?" >> $R/fla-compat.log
mark fla-compat
cat $R/times.log; grep -v "^==" $R/ncu-*.txt | grep -i "duration\|cycles\|throughput\|wavefronts\|inst\|rc=" ; tail -12 $R/fla-compat.log
