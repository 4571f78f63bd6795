"""GPU time (CUDA-graph replay, median of 20 replays of 5 calls) of one sequence at several lengths,
16 heads (MHA) and a GVA2 case: where the 32-channel state pass runs alongside phase 1 and where it
does not (src/launch.cu). Prints one JSON line per length, tagged with the build's name.

usage: PYTHONPATH=python python3 bench/sequence_lengths.py TAG   (run from the repository root;
       PYTHONPATH picks the build, e.g. another checkout's python/)
"""
import json
import statistics
import sys
from pathlib import Path

import torch

import gdn2  # first: the build on PYTHONPATH, not the one that bench.py puts first
from gdn2 import testing

sys.path.insert(0, str(Path.cwd() / "bench"))
import bench  # noqa: E402

tag = sys.argv[1]
for T, hq, hv in [(512, 16, 16), (768, 16, 16), (1024, 16, 16), (1536, 16, 16), (2048, 16, 16), (3072, 16, 16),
                  (4288, 16, 16), (8192, 16, 16), (16384, 16, 16), (32768, 16, 16), (4096, 8, 16), (12800, 8, 16)]:
    inp = testing.make_inputs((T,), hq, hv, kind="model", initial_state=False, seed=1, device="cuda",
                              gen_device="cuda")
    fn = lambda: gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],  # noqa: E731
                                 cu_seqlens=inp["cu_seqlens"], output_final_state=True)
    for _ in range(5):
        fn()
    g = statistics.median(bench.graph_time_ms(torch, fn, 5, 20)) * 1e3
    print(json.dumps({"build": tag, "T": T, "hq": hq, "hv": hv, "graph_us": round(g, 1)}), flush=True)
