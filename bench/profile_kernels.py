"""Per-kernel GPU time of gdn2 on the benchmark rows, from the PyTorch profiler (CUPTI activity
records: works without hardware counters). Tells how a call's time splits between phase 1
(chunk_factors) and phase 2 (state_pass).

usage: PYTHONPATH=python python3 bench/profile_kernels.py [--rows PREFIX,...] [--calls N]
"""
import argparse
import collections
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402
import gdn2  # noqa: E402
from gdn2 import testing  # noqa: E402


def kernel_times_us(fn, calls):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    totals = collections.defaultdict(float)
    for evt in prof.events():
        if evt.device_type == torch.autograd.DeviceType.CUDA:
            name = evt.name
            for short in ("chunk_factors", "state_pass_kernel<32>", "state_pass_kernel_v64", "state_pass"):
                if short in name:
                    name = short
                    break
            totals[name] += evt.device_time / calls  # device_time is in us
    return dict(totals)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", default="")
    p.add_argument("--calls", type=int, default=20)
    args = p.parse_args()
    rows = list(testing.CANONICAL_ROWS) + list(bench.scale_rows(testing.Row, testing.random_lengths))
    if args.rows:
        rows = [r for r in rows if any(r.name.startswith(x) for x in args.rows.split(","))]
    print(f"{'row':22s} {'kernel':28s} {'us/call':>9s}")
    for row in rows:
        inp = testing.row_inputs(row)
        times = kernel_times_us(bench.ours_fn(gdn2, inp, row), args.calls)
        for name, us in sorted(times.items(), key=lambda kv: -kv[1]):
            print(f"{row.name:22s} {name[:28]:28s} {us:9.1f}")
        del inp
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
