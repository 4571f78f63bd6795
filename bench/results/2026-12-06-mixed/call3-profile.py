"""Call 3: GPU time per kernel (PyTorch profiler) of S3 and N64-MIXED-MHA with the hint, per build
(the package in python/gdn2): the mixed call's two parts and the memset, full kernel names."""
import collections, sys
from pathlib import Path
import torch
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench  # noqa: E402
import gdn2  # noqa: E402
from gdn2 import testing  # noqa: E402

rows = [r for r in list(testing.CANONICAL_ROWS) + list(bench.scale_rows(testing.Row, testing.random_lengths))
        if r.name.startswith(("S3", "N64-MIXED-MHA"))]
for row in rows:
    inp = testing.row_inputs(row)
    L = max(row.lengths)
    fn = lambda: gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                 initial_state=inp["initial_state"], output_final_state=True, max_seqlen=L)
    for _ in range(3): fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(20): fn()
        torch.cuda.synchronize()
    tot = collections.defaultdict(float); spans = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            n = e.name.replace("void gdn2::kernels::", "").split("(")[0]
            tot[n] += e.device_time / 20
            spans.append((e.time_range.start, e.time_range.end, n))
    for n, us in sorted(tot.items(), key=lambda kv: -kv[1]): print(f"{row.name:22s} {n:60s} {us:8.1f}")
    spans.sort(); c0 = spans[-3:]  # the last call's kernels: start offsets
    t0 = c0[0][0]
    for s, e, n in c0: print(f"{row.name:22s}   last call: {n:50s} start {s - t0:7.1f} end {e - t0:7.1f}")
