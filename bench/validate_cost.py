"""What validate=True costs: the wall time of a call with and without it, on N one-token sequences
in a pool updated in place (the case where validate_values compares every pair of sequences'
slots), N from 64 to 65,536. validate=True synchronises, so both calls are timed by the host's
clock around the call and a synchronisation; median over --calls calls after warm-up.

    PYTHONPATH=python python3 bench/validate_cost.py [--counts 64,1024,16384,65536] [--out DIR]
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import metadata  # noqa: E402  (puts the checkout's python/ first)

import gdn2  # noqa: E402
from gdn2.testing import make_inputs  # noqa: E402


def wall_us(fn, calls):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="64,1024,16384,65536")
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = []
    for n in (int(x) for x in args.counts.split(",")):
        inp = make_inputs((1,) * n, 1, 1, kind="model", seed=n, device="cuda", gen_device="cuda",
                          cu_dtype=torch.int32)
        pool = torch.zeros(n + 1, 1, 128, 128, device="cuda")
        idx = torch.randperm(n + 1, device="cuda")[:n].to(torch.int32)
        names = ("q", "k", "v", "g", "b", "w")

        def call(validate):
            gdn2.chunk_gdn2(*[inp[x] for x in names], cu_seqlens=inp["cu_seqlens"], initial_state=pool,
                            initial_state_indices=idx, final_state=pool, final_state_indices=idx,
                            max_seqlen=1, validate=validate)

        plain, checked = wall_us(lambda: call(False), args.calls), wall_us(lambda: call(True), args.calls)
        rows.append({"sequences": n, "call_us": plain, "validated_call_us": checked, "validate_us": checked - plain})
        print(f"N={n:6d}  call {plain:9.1f} us  with validate=True {checked:9.1f} us  "
              f"(validate_values {checked - plain:9.1f} us)", flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "validate_cost.json"), "w") as f:
            json.dump({"meta": metadata(torch, gdn2, 0.0, "not run"), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
