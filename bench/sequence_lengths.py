"""GPU time (CUDA-graph replay, median of 20 replays of 5 calls) of one sequence at several lengths:
where the 32-channel state pass runs alongside phase 1 and where it does not (src/launch.cu).
Prints one JSON line per length, tagged with the build's name. Sets of shapes:
  mha    16 heads (MHA) at 1024-16384 tokens, and 12800 tokens of 8 key and 16 value heads
  gva    16 key and 32 value heads (GVA2) at 1024-32768 tokens, and 8 key and 32 value heads (GVA4):
         one value head per pass CTA would take 128 SMs (two heads per CTA: 64)

usage: PYTHONPATH=python python3 bench/sequence_lengths.py TAG [mha|gva]   (from the repository root)
"""
import json
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path.cwd() / "bench"))
import bench  # noqa: E402
import gdn2  # noqa: E402
from gdn2 import testing  # noqa: E402

SHAPES = {
    "mha": [(1024, 16, 16), (2048, 16, 16), (3072, 16, 16), (4288, 16, 16), (8192, 16, 16),
            (16384, 16, 16), (12800, 8, 16)],
    "gva": [(1024, 16, 32), (2048, 16, 32), (4096, 16, 32), (8192, 16, 32), (32768, 16, 32),
            (2048, 8, 32), (8192, 8, 32)],
}
tag = sys.argv[1]
for T, hq, hv in SHAPES[sys.argv[2] if len(sys.argv) > 2 else "mha"]:
    inp = testing.make_inputs((T,), hq, hv, kind="model", initial_state=False, seed=1, device="cuda",
                              gen_device="cuda")
    fn = lambda: gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],  # noqa: E731
                                 cu_seqlens=inp["cu_seqlens"], output_final_state=True)
    for _ in range(5):
        fn()
    g = statistics.median(bench.graph_time_ms(torch, fn, 5, 20)) * 1e3
    print(json.dumps({"build": tag, "T": T, "hq": hq, "hv": hv, "graph_us": round(g, 1)}), flush=True)
