"""A serving engine's call, two ways: states gathered from a pool and scattered back, or the pool
read and updated in place through state indices (docs/design.md, "State pools").

Engines (vLLM, SGLang) keep each request's state in a slot of a pool [P, Hv, V, K] and, with a
kernel that takes states per sequence, run three steps per layer and call:
  gather    h0 = pool[idx]                      (a copy of N Hv V K fp32 values)
  forward   o, ht = chunk_gdn2(..., initial_state=h0, output_final_state=True)
  scatter   pool[idx] = ht                      (another copy)
With state indices the call reads slot idx[n] and writes its final state back there itself:
  pooled    o = chunk_gdn2(..., initial_state=pool, initial_state_indices=idx,
                           final_state=pool, final_state_indices=idx)
Both run on the same inputs (the benchmark's rows with an initial and a final state, pool of 4N
slots, random distinct slots) and must give bit for bit the same output and pool. Times: the GPU
time per call from CUDA-graph replay (median), as bench.py's "graph" column, with the max_seqlen
hint; the bytes that the gather and scatter move are printed beside them.

With --dtype bfloat16 the pool is bf16 (vLLM's default for GDN states): the engine's way then
widens the gathered slots to fp32 and rounds the final states back when it scatters them, the
pooled call does both inside the kernels (the same values, bit for bit).

    PYTHONPATH=python python3 bench/state_pool.py [--rows S2,N64-MIXED-MHA] [--dtype bfloat16] [--out DIR]
"""

import argparse
import dataclasses
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import graph_time_ms, metadata, scale_rows  # noqa: E402  (puts the checkout's python/ first)

import gdn2  # noqa: E402
from gdn2.testing import CANONICAL_ROWS, Row, make_inputs, random_lengths  # noqa: E402

DEFAULT_ROWS = "S1-MHA-T64,S2-MHA-T1024,S3-MHA-PACKED-T4096,N64-MIXED-MHA,N64-MIXED-GVA2,B8x2K-MHA"


def engine_calls(inp, row, pool, idx):
    names = ("q", "k", "v", "g", "b", "w")
    args = [inp[n] for n in names]
    hint = max(row.lengths)
    out = torch.empty(row.tokens, row.hv, 128, dtype=torch.bfloat16, device="cuda")

    def gather_scatter():
        h0 = pool[idx].float()  # a copy either way (a gather), widened if the pool is bf16
        _, ht = gdn2.chunk_gdn2(*args, cu_seqlens=inp["cu_seqlens"], initial_state=h0, output=out,
                                output_final_state=True, max_seqlen=hint)
        pool[idx] = ht.to(pool.dtype)

    def pooled():
        gdn2.chunk_gdn2(*args, cu_seqlens=inp["cu_seqlens"], initial_state=pool, initial_state_indices=idx,
                        output=out, final_state=pool, final_state_indices=idx, max_seqlen=hint)

    return gather_scatter, pooled, out


def run(row, calls, replays, dtype):
    n = len(row.lengths)
    inp = make_inputs(row.lengths, row.hq, row.hv, kind="model", seed=row.seed, device="cuda", gen_device="cuda")
    slots = 4 * n
    start = (torch.randn(slots, row.hv, 128, 128, device="cuda") * 0.1).to(dtype)
    idx = torch.randperm(slots, generator=torch.Generator().manual_seed(row.seed))[:n].to(torch.int32).cuda()
    pool = start.clone()
    gather_scatter, pooled, out = engine_calls(inp, row, pool, idx)

    # Bit for bit: one call each way from the same pool.
    gather_scatter()
    ref_out, ref_pool = out.clone(), pool.clone()
    pool.copy_(start)
    pooled()
    torch.cuda.synchronize()
    same = bool(torch.equal(out, ref_out) and torch.equal(pool, ref_pool))

    rec = {"row": row.name, "tokens": row.tokens, "sequences": n, "hq": row.hq, "hv": row.hv,
           "pool_slots": slots, "pool_dtype": str(dtype).replace("torch.", ""), "bitwise_equal": same,
           # each copy reads and writes once: the pool's elements and the fp32 states
           "gather_scatter_bytes": 2 * n * row.hv * 128 * 128 * (4 + start.element_size())}
    for name, fn in (("gather_scatter_us", gather_scatter), ("pooled_us", pooled)):
        rec[name] = 1e3 * statistics.median(graph_time_ms(torch, fn, calls, replays))
    rec["saved_us"] = rec["gather_scatter_us"] - rec["pooled_us"]
    rec["saved_share"] = rec["saved_us"] / rec["gather_scatter_us"]
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default=DEFAULT_ROWS)
    ap.add_argument("--calls", type=int, default=5, help="calls per graph")
    ap.add_argument("--replays", type=int, default=20, help="graph replays")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"], help="the pool's dtype")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    known = {r.name: r for r in CANONICAL_ROWS + scale_rows(Row, random_lengths)}
    records = []
    for name in args.rows.split(","):
        row = dataclasses.replace(known[name], initial_state=True, final_state=True)
        rec = run(row, args.calls, args.replays, dtype)
        records.append(rec)
        print(f"{rec['row']:<22} gather+call+scatter {rec['gather_scatter_us']:9.1f} us   pooled {rec['pooled_us']:9.1f} us"
              f"   saved {rec['saved_us']:7.1f} us ({100 * rec['saved_share']:4.1f}%)   bitwise {rec['bitwise_equal']}",
              flush=True)
    lines = [f"Pool dtype: {args.dtype}.", "",
             "| row | N | gather + call + scatter (us) | pooled, in place (us) | saved | gather/scatter MB | bitwise |",
             "|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r['row']} | {r['sequences']} | {r['gather_scatter_us']:.1f} | {r['pooled_us']:.1f} | "
                     f"{r['saved_us']:.1f} us ({100 * r['saved_share']:.0f}%) | {r['gather_scatter_bytes'] / 1e6:.1f} | "
                     f"{r['bitwise_equal']} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "state_pool.json"), "w") as f:
            json.dump({"meta": metadata(torch, gdn2, 0.0, "not run"), "rows": records}, f, indent=1)
        with open(os.path.join(args.out, "state_pool.md"), "w") as f:
            f.write(table + "\n")
    return 0 if all(r["bitwise_equal"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
