"""Host time of one gdn2 call, split into the layers it passes through (docs/performance.md,
"The host path"). Tiny problem (T = 16, one head), so the GPU never holds the host back: each
number is host wall time per call, median of 15 repetitions of 100 back-to-back calls, the cases
taking turns within each repetition.

  chunk_gdn2                the public function (allocates the output)
  chunk_gdn2 via torch.ops  the same with gdn2._eager switched off (where it is built)
  chunk_gdn2(output=...)    the public function writing into a given output
  ops forward               the registered op gdn2::forward, called directly
  ops forward_out           gdn2::forward_out with a preallocated output
  eager forward(_out)       the same ops through gdn2._eager (what chunk_gdn2 calls where it is built)
  torch.empty / add_ / ...  PyTorch's own calls, for scale (add_ is one kernel launch)

The C++ layers below the op (contract check, the two launches) are timed by the
gdn2_host_timing program (bench/host_timing.cu).

usage: PYTHONPATH=python python3 bench/host_breakdown.py [--json FILE]
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import gdn2  # noqa: E402
from gdn2 import ops, testing  # noqa: E402


def per_call_us(cases, calls=100, reps=15):
    """Median host time per call of each case. The cases take turns within each repetition, so
    that a change of the host's speed during the run (calls on the lent machine measured 14-16 us
    in some processes and 22-24 us in others) reaches every case alike."""
    times = {name: [] for name in cases}
    for _ in range(reps):
        for name, fn in cases.items():
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            times[name].append((t1 - t0) / calls * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


def without_eager(fn):
    """fn with the public function's eager path switched off (two attribute writes added)."""
    def run():
        saved, ops._eager = ops._eager, None
        try:
            fn()
        finally:
            ops._eager = saved
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to time")
        return
    row = testing.Row("TINY-T16-H1", (16,), 1, 1, False, False, "gentle", 7)
    inp = testing.row_inputs(row, device="cuda")
    q, k, v, g, b, w = (inp[n] for n in ("q", "k", "v", "g", "b", "w"))
    cu, h0 = inp["cu_seqlens"], inp["initial_state"]
    scale = q.shape[-1] ** -0.5
    out = torch.empty_like(v)
    x = torch.zeros(16, device="cuda")
    cases = {
        "chunk_gdn2": lambda: gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu, initial_state=h0),
        "chunk_gdn2(output=...)": lambda: gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu,
                                                          initial_state=h0, output=out),
        "ops forward": lambda: ops._forward(q, k, v, g, b, w, cu, h0, scale, False, False),
        "ops forward_out": lambda: ops._forward_out(q, k, v, g, b, w, cu, h0, out, None, scale, False),
        **({} if ops._eager is None else {
            "chunk_gdn2 via torch.ops": without_eager(
                lambda: gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu, initial_state=h0)),
            "eager forward": lambda: ops._eager.forward(q, k, v, g, b, w, cu, h0, scale, False, False),
            "eager forward_out": lambda: ops._eager.forward_out(q, k, v, g, b, w, cu, h0, out, None, scale,
                                                                False),
        }),
        "torch.empty (bf16, 2K)": lambda: torch.empty((16, 1, 128), device="cuda", dtype=torch.bfloat16),
        "x.add_(1)": lambda: x.add_(1),
        "x.zero_()": lambda: x.zero_(),
    }
    for _ in range(3):  # warm-up: the first calls load modules and fill the caching allocator
        for fn in cases.values():
            for _ in range(20):
                fn()
    torch.cuda.synchronize()
    results = per_call_us(cases)
    for name, us in results.items():
        print(f"{name:26s} {us:7.2f} us/call")
    if args.json:
        Path(args.json).write_text(json.dumps({"gpu": torch.cuda.get_device_name(),
                                               "host_us_per_call": results}, indent=1))


if __name__ == "__main__":
    main()
