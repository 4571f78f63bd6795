"""Probe, no kernel change: S3 with its longest sequence in the fused path's pair form beside the
other sequences in the 128-channel form (docs/performance.md, "S3's chain, and both fused forms in
one launch").

S3's time is the chain of its 694-token sequence in the 128-channel form. This runs that sequence
as a call of its own (16 heads: the pair form, fused_slices) and the other 19 sequences as another
(304 heads: the 128-channel form), on two streams, so that the two grids share the SMs as one
launch of both forms would. Its time bounds what such a launch could gain (it also pays a second
launch). Prints us per call by bench.py's protocol: the median of CUDA events around each of
--iters calls (back to back; at these sizes the GPU, not the host, sets the pace) and, on one
stream, from CUDA-graph replay (two streams are not captured: the op's workspace on a side
stream would come from outside the graph's pool):
  whole     S3 as one call (fused, the hint): what the benchmark's row runs
  long      the long sequence alone (pair form)
  rest      the other 19 alone (128-channel form)
  serial    long, then rest, on one stream
  parallel  long on a side stream beside rest (events only)
Checks first: the two streams' outputs and final states bit for bit those of the two calls made
one after the other, and against the fp64 reference (the tests' tolerances). Needs an sm_90 GPU
and the gdn2 op; exits 1 if a check fails.

    PYTHONPATH=python python3 bench/probe_mixed_forms.py [--iters 100] [--out DIR]
"""

import argparse
import json
import os
import statistics
import sys

import torch

import gdn2
from gdn2.testing import CANONICAL_ROWS, norm_rel_error, offsets, row_inputs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import event_times_ms, graph_time_ms, metadata  # noqa: E402

OUT_TOL, STATE_TOL = 4e-3, 3e-3  # the tests' and bench.py's accuracy check


def pieces(row, inp):
    """The call over the whole row, and the long sequence's and the rest's calls, each writing
    its part of the same output and final state."""
    lengths = row.lengths
    longest = max(range(len(lengths)), key=lambda i: lengths[i])
    assert longest == len(lengths) - 1, "S3's longest sequence is its last: the rest is one range"
    t0 = sum(lengths[:-1])
    names = ("q", "k", "v", "g", "b", "w")
    T, N = sum(lengths), len(lengths)
    out = torch.empty(T, row.hv, 128, dtype=torch.bfloat16, device="cuda")
    ht = torch.empty(N, row.hv, 128, 128, dtype=torch.float32, device="cuda")
    cu = inp["cu_seqlens"]
    cu_long = offsets(lengths[-1:], dtype=cu.dtype, device="cuda")
    cu_rest = cu[:-1].clone()

    def whole():
        gdn2.chunk_gdn2(*(inp[n] for n in names), cu_seqlens=cu, output=out, final_state=ht,
                        algorithm="fused", max_seqlen=max(lengths))

    def long():
        gdn2.chunk_gdn2(*(inp[n][t0:] for n in names), cu_seqlens=cu_long, output=out[t0:],
                        final_state=ht[N - 1:], algorithm="fused", max_seqlen=lengths[-1])

    def rest():
        gdn2.chunk_gdn2(*(inp[n][:t0] for n in names), cu_seqlens=cu_rest, output=out[:t0],
                        final_state=ht[:N - 1], algorithm="fused", max_seqlen=max(lengths[:-1]))

    return whole, long, rest, out, ht


def parallel_of(first, second):
    side = torch.cuda.Stream()

    def both():
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            first()
        second()
        torch.cuda.current_stream().wait_stream(side)
    return both


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iters", type=int, default=100, help="timed calls (events)")
    ap.add_argument("--calls", type=int, default=10, help="calls per graph")
    ap.add_argument("--replays", type=int, default=20, help="graph replays")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    row = next(r for r in CANONICAL_ROWS if r.name.startswith("S3"))
    inp = row_inputs(row)
    whole, long, rest, out, ht = pieces(row, inp)

    # The pieces against their own calls one after the other (bit for bit), and the joined
    # result against the fp64 reference.
    checks = {}
    long(); rest()
    serial_o, serial_h = out.clone(), ht.clone()
    out.fill_(float("nan")); ht.fill_(float("nan"))
    parallel_of(long, rest)()
    torch.cuda.synchronize()
    checks["parallel bit for bit the serial calls"] = bool(torch.equal(out, serial_o) and torch.equal(ht, serial_h))
    ref_o, ref_h = gdn2.reference_tokenwise(*(inp[n] for n in ("q", "k", "v", "g", "b", "w")),
                                            cu_seqlens=inp["cu_seqlens"])
    checks["output error"] = norm_rel_error(out, ref_o)
    checks["final state error"] = norm_rel_error(ht, ref_h)
    ok = (checks["parallel bit for bit the serial calls"] and checks["output error"] <= OUT_TOL
          and checks["final state error"] <= STATE_TOL)

    def serial():
        long()
        rest()

    # bench.py's protocol: events around each of --iters calls after warm-up, and graph replay.
    def events_us(fn):
        for _ in range(5):
            fn()
        return 1e3 * statistics.median(event_times_ms(torch, fn, args.iters))

    one_stream = (("whole", whole), ("long", long), ("rest", rest), ("serial", serial))
    times = {"events": {name: events_us(fn) for name, fn in one_stream},
             "graph": {name: 1e3 * statistics.median(graph_time_ms(torch, fn, args.calls, args.replays))
                       for name, fn in one_stream}}
    times["events"]["parallel"] = events_us(parallel_of(long, rest))
    report = {"meta": metadata(torch, gdn2, 0.0, "not run"), "row": row.name, "checks": checks,
              "ok": ok, "us_per_call": times}
    print(json.dumps(report, indent=1))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "probe_mixed_forms.json"), "w") as f:
            json.dump(report, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
