#!/bin/bash
# Call 4: Nsight Compute on the fused kernel of B8x2K-MHA and N64-MIXED-MHA (fused path forced,
# one launch after two), f (main's kernels) against kq: did the shared-memory traffic drop as
# predicted, and what else moved.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1
T=$PWD/tools_tmp
pack() { tar czf $OUT/r.tgz.tmp -C $OUT r && mv $OUT/r.tgz.tmp $OUT/r.tgz; }
t0=$(date +%s)
mark() { echo "$1 $(( $(date +%s) - t0 ))s" >> $R/times.log; pack; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
use() { cp $T/$1/python/gdn2/*.so python/gdn2/; }
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
M=$M,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed
M=$M,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
for row in B8x2K-MHA N64-MIXED-MHA; do
  for V in f kq; do
    use $V
    timeout 90 ncu --clock-control none -k regex:fused_kernel --launch-skip 2 --launch-count 1 --metrics $M python3 /tmp/b8.py $row > $R/ncu-$row-$V.txt 2>&1; echo "rc=$?" >> $R/ncu-$row-$V.txt
    mark ncu-$row-$V
  done
done
for f in $R/ncu-*.txt; do echo "== $f"; grep -E "^\s+(gpu__|sm__|smsp__|l1tex__|dram__)" $f | awk '{print $1, $(NF)}'; done
cat $R/times.log
