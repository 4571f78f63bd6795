"""Per-kernel GPU time of gdn2 on the benchmark rows, from the PyTorch profiler (CUPTI activity
records: works without hardware counters). Tells how a call's time splits between phase 1
(chunk_factors) and phase 2 (state_pass). The 32-channel state pass starts while phase 1 runs
(programmatic dependent launch), so its own time includes a wait; "state_pass after phase 1" is the
part of a state pass after phase 1 has ended, the time it adds to the call.

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


SHORT_NAMES = {
    "chunk_factors_kernel<false>": "chunk_factors",
    "chunk_factors_kernel<true>": "chunk_factors_published",  # alongside the 32-channel pass
    "state_pass_kernel<32, false>": "state_pass_v32",
    "state_pass_kernel<32, true>": "state_pass_v32_overlapped",  # runs alongside phase 1
    "state_pass_kernel_rs<1>": "state_pass_v64",
    "state_pass_kernel_rs<2>": "state_pass_v128",
}


def short_name(name):
    for pattern, short in SHORT_NAMES.items():
        if pattern in name:
            return short
    return name


def kernel_times_us(fn, calls):
    """GPU time per call of each kernel (and memset), plus the state pass's time after phase 1 ends
    (the 32-channel pass is launched behind phase 1, so its own duration includes its CTAs' wait)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    totals = collections.defaultdict(float)
    spans = []
    for evt in prof.events():
        if evt.device_type == torch.autograd.DeviceType.CUDA:
            name = short_name(evt.name)
            totals[name] += evt.device_time / calls  # device_time is in us
            span = getattr(evt, "time_range", None)
            if span is not None:
                spans.append((span.start, span.end, name))
    # Per call: chunk_factors, then the state pass; the part of the state pass after phase 1 ends.
    after, last_factors_end = 0.0, None
    for start, end, name in sorted(spans):
        if name.startswith("chunk_factors"):
            last_factors_end = end
        elif name.startswith("state_pass") and last_factors_end is not None:
            after += end - max(start, last_factors_end)
    if after > 0:
        totals["state_pass after phase 1"] = after / calls
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
