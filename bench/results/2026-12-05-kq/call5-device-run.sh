#!/bin/bash
# Call 5: kq2 = kq with the solver's ldmatrix rows in four registers and immediate offsets (call 4:
# kq's address arithmetic added 8.5% warp instructions), k32 = kq2 with three slots (four kq
# buffers), against f (main's kernels): outputs bit for bit, an A/B of every row (two rounds,
# hint), Nsight Compute on B8x2K-MHA (kq2).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
for V in f kq2 k32; do
  use $V; PYTHONPATH=python timeout 90 python3 bench/outputs_bitwise.py dump $R/dump-$V.pt > $R/dump-$V.log 2>&1; echo "rc=$?" >> $R/dump-$V.log
done
for V in kq2 k32; do
  python3 bench/outputs_bitwise.py compare $R/dump-f.pt $R/dump-$V.pt > $R/compare-$V.log 2>&1; echo "rc=$?" >> $R/compare-$V.log
done
rm -f $R/dump-*.pt
mark bitwise
for round in 1 2; do
  for V in f kq2 k32; do
    use $V
    timeout 60 python3 bench/bench.py --no-fla --no-accuracy --max-seqlen --out $R/ab-$V-$round > $R/ab-$V-$round.log 2>&1; echo "rc=$?" >> $R/ab-$V-$round.log
  done
  mark ab-$round
done
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
M=gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__cycles_active.avg,sm__inst_executed.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
for V in kq2 f; do
  use $V
  timeout 60 ncu --clock-control none -k regex:fused_kernel --launch-skip 2 --launch-count 1 --metrics $M python3 /tmp/b8.py B8x2K-MHA > $R/ncu-B8x2K-MHA-$V.txt 2>&1; echo "rc=$?" >> $R/ncu-B8x2K-MHA-$V.txt
done
mark ncu
tail -1 $R/compare-*.log; for f in $R/ncu-*.txt; do echo "== $f"; grep -E "^\s+(gpu__|sm__|smsp__|l1tex__|dram__)" $f | awk '{print $1, $(NF)}'; done
cat $R/times.log
