"""The fused path's exact blocks on the benchmark's own inputs (written in the session of
2026-12-07, not yet run: no device time was left).

For each row, the inputs bench.py times (testing.row_inputs, drawn on the GPU for the rows at
scale), and per (sequence, key head) the 16-token blocks that fail the producer's range rule
(src/kernels/fused.cuh, produce: per key channel, the decays' running product r over the block,
sum |k_t / r_t| <= 2^90 and sum |b_t k_t r_t| + |scale q_t r_t| <= 2^30; a NaN fails), in fp32 as
the producer forms them (d = exp2(min(max(g, -inf), 0) log2 e), rows past the sequence's end
with g = 0 and k, b, q = 0). A block is exact where any of its 128 channels fails.

usage (repository root, on the GPU machine):
  PYTHONPATH=python python3 bench/results/2026-12-07-vote-and-consumer-chain/count_exact_blocks.py [ROW ...]
"""
import importlib.util
import math
import os
import sys

import torch

from gdn2 import testing

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench", os.path.join(HERE, "..", "..", "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

BLK = 16
MAX_KINV, MAX_ROW = 2.0 ** 90, 2.0 ** 30


def exact_blocks(g, k, b, q, scale):
    """g, k, b, q: [L, Hq, K] of one sequence (fp32). Exact blocks per key head: [Hq] counts, of ceil(L / 16)."""
    L = g.shape[0]
    nb = (L + BLK - 1) // BLK
    pad = nb * BLK - L

    def blocks(x):
        x = torch.nn.functional.pad(x, (0, 0, 0, 0, 0, pad))
        return x.view(nb, BLK, *x.shape[1:])

    g, k, b, q = blocks(g), blocks(k), blocks(b), blocks(q)
    log2 = torch.clamp(torch.where(torch.isnan(g), torch.full_like(g, -math.inf), g), max=0.0) * (1.0 / math.log(2.0))
    d = torch.exp2(log2)
    r = torch.cumprod(d, dim=1)
    ki = k / r  # inf where r underflows: fails, as rcp(0) does in the kernel
    sum_ki = ki.abs().sum(dim=1)
    sum_row = (b * k * r).abs().sum(dim=1) + (scale * q * r).abs().sum(dim=1)
    ok = (sum_ki <= MAX_KINV) & (sum_row <= MAX_ROW)  # [nb, Hq, K]; NaN compares false
    return (~ok.all(dim=-1)).sum(dim=0), nb  # [Hq]


def main(argv):
    rows = list(testing.CANONICAL_ROWS) + list(bench.scale_rows(testing.Row, testing.random_lengths))
    if argv:
        rows = [r for r in rows if any(r.name.startswith(w) for w in argv)]
    scale = testing.HEAD_DIM ** -0.5
    for row in rows:
        canonical = row.name in bench.TARGET_US
        inp = testing.row_inputs(row, device="cuda", gen_device="cpu" if canonical else "cuda")
        cu = inp["cu_seqlens"].tolist()
        g, k, b, q = (inp[n].float() for n in ("g", "k", "b", "q"))
        total = exact = 0
        worst = (0.0, None)
        for s in range(len(cu) - 1):
            lo, hi = cu[s], cu[s + 1]
            per_head, nb = exact_blocks(g[lo:hi], k[lo:hi], b[lo:hi], q[lo:hi], scale)
            per_head = per_head.tolist()
            total += nb * len(per_head)
            exact += sum(per_head)
            for h, e in enumerate(per_head):
                if e / nb > worst[0]:
                    worst = (e / nb, (s, h, e, nb))
        where = "none" if worst[1] is None else "sequence %d, key head %d: %d of %d blocks" % worst[1]
        print(f"{row.name:22s} exact blocks {exact} of {total} ({100.0 * exact / max(total, 1):.3f}%); "
              f"worst (sequence, key head): {where}", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
