"""Calls gdn2 on one benchmark row three times (with the max_seqlen hint), for ncu to profile."""
import sys
sys.path[:0] = ["tools_tmp/ab1/main/python", "bench"]
import torch  # noqa: E402
import gdn2  # noqa: E402
from gdn2 import testing  # noqa: E402
import bench  # noqa: E402

rows = {r.name: r for r in list(testing.CANONICAL_ROWS) + list(bench.scale_rows(testing.Row, testing.random_lengths))}
row = rows[sys.argv[1]]
inp = testing.row_inputs(row, device="cuda", gen_device="cuda")
call = bench.ours_fn(gdn2, inp, row, hint=True)
with torch.inference_mode():
    for _ in range(3):
        call()
torch.cuda.synchronize()
print(gdn2.__file__, row.name, "done")
