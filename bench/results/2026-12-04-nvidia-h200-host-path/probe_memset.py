"""Probe: what one cudaMemsetAsync node before phase 1 costs in a CUDA graph of gdn2's call.
Graph replay time of [memset of 1 KB, call] against [call], S1 and S2 (canonical inputs), five
alternations, 20 calls per graph, median of 20 replays each. S2 already has one memset (its ready
words); S1 has none.

usage: PYTHONPATH=<build>/python python3 probe_memset.py   (bench/ of that build on sys.path)"""
import ctypes
import statistics
import sys
from pathlib import Path

import torch

here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
sys.path.insert(0, str(here / "bench"))
sys.path.insert(0, str(here / "python"))
import bench  # noqa: E402
import gdn2  # noqa: E402
from gdn2 import testing  # noqa: E402

cudart = None
for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
    try:
        cudart = ctypes.CDLL(name)
        break
    except OSError:
        pass
buf = torch.empty(4096, dtype=torch.uint8, device="cuda")


def memset():
    err = cudart.cudaMemsetAsync(ctypes.c_void_p(buf.data_ptr()), 0, ctypes.c_size_t(1024),
                                 ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    assert err == 0, err


rows = {r.name: r for r in testing.CANONICAL_ROWS}
with torch.inference_mode():
    for name in ("S1-MHA-T64", "S2-MHA-T1024"):
        inp = testing.row_inputs(rows[name], device="cuda")
        call = bench.ours_fn(gdn2, inp, rows[name])

        def with_memset():
            memset()
            return call()
        for f in (call, with_memset):
            for _ in range(5):
                f()
        plain, extra = [], []
        for _ in range(5):
            plain.append(statistics.median(bench.graph_time_ms(torch, call, 20, 20)) * 1e3)
            extra.append(statistics.median(bench.graph_time_ms(torch, with_memset, 20, 20)) * 1e3)
        print(f"{name}: graph us per call, call alone {statistics.median(plain):.2f} "
              f"{[round(x, 2) for x in plain]}; memset + call {statistics.median(extra):.2f} "
              f"{[round(x, 2) for x in extra]}; one memset node +{statistics.median(extra) - statistics.median(plain):.2f} us",
              flush=True)
