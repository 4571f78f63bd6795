"""A list-scheduling model of the fused path's 128-channel form: when do its CTAs end, taken in
sequence order or longest sequence first (docs/performance.md, "The fused path's CTAs longest
sequence first"), and what its block's cost allows on each of issue 3's rows. CPU only.

    python3 bench/fused_order_model.py [--block-us 2.3] [--cta-us 6] [--sms 132]
    python3 bench/fused_order_model.py --bounds [--block-cycles 3491] [--clock-ghz 1.98] [--sms 132]
    python3 bench/fused_order_model.py --mixed [--long-tokens 600] [--sms 132]

Every CTA (one per sequence and value head, one per SM at a time) costs cta_us + block_us x its
sequence's 16-token blocks; each SM takes the next CTA in launch order when it frees (greedy list
scheduling). Prints the makespan in launch order (sequence order) and longest first, for S3's
lengths (SPEC.md), three draws of 64 lengths uniform in [1, 512] (numpy; the benchmark's own
N64-MIXED lengths come from torch's generator), and B8x2K.

--mixed prints S3 with the heads of its sequences of at least --long-tokens tokens in the pair form
(two CTAs a head, --pair-us + --pair-block-us per block, started first) and the rest in the
128-channel form on the SMs left and those the pair form frees, against S3 in the 128-channel form
alone, at three start-up costs of a 128-channel CTA (docs/performance.md, "S3's chain, and both
fused forms in one launch"). The block costs are kAuto's fitted ones (src/contract.cpp).

--bounds prints, for every row with a target, the fewest block times in which any schedule of the
128-channel form can run it, its sequences cut into segments (item 8 of docs/performance.md,
"Where the remaining gap lies") or not, and the block cost at which the target could at best be
met (`cut_bound`; the same section).
"""

import argparse
import heapq
import json
import math
from pathlib import Path


def makespan(durations, sms, busy=()):
    """The end of the last of `durations` run greedily, in order, on `sms` machines, of which
    len(busy) are taken until the times in `busy`."""
    free = list(busy) + [0.0] * (sms - len(busy))
    heapq.heapify(free)
    end = max(busy, default=0.0)
    for d in durations:
        t = heapq.heappop(free) + d
        end = max(end, t)
        heapq.heappush(free, t)
    return end


def cta_durations(lengths, hv, block_us, cta_us, longest_first):
    blocks = [math.ceil(n / 16) for n in lengths]
    order = sorted(range(len(lengths)), key=lambda s: (-blocks[s], s)) if longest_first else range(len(lengths))
    return [cta_us + block_us * blocks[s] for s in order for _ in range(hv)]


S3 = (63, 129, 257, 31, 512, 65, 128, 17, 333, 91, 211, 7, 401, 255, 144, 73, 289, 377, 19, 694)


BLOCK_TOKENS = 16
K = V = 128
HQ = 16


def cut_bound(lengths, hq, hv, sms):
    """(B, L): a lower bound, in block times, on any run of the 128-channel form, and the longest
    segment (in blocks) that attains it.

    A block is 16 tokens of one value head (all 128 channels); an SM runs one at a time. Cutting
    every sequence into segments of at most L blocks leaves each sequence's first L blocks to the
    value runs alone; every later block needs its identity run too, one per key head:
    W(L) = hv sum(b) + hq sum(max(0, b - L)) blocks. No schedule on `sms` SMs ends before
    max(L, W(L) / sms) block times; L = max(b) is the uncut form. Joins, launches and packing are
    left out, so the bound is below what any build can reach."""
    b = [math.ceil(n / BLOCK_TOKENS) for n in lengths]
    best = None
    for longest in range(1, max(b) + 1):
        work = hv * sum(b) + hq * sum(max(0, x - longest) for x in b)
        bound = max(longest, work / sms)
        if best is None or bound < best[0]:
            best = (bound, longest)
    return best


def mixed_forms(lengths, hv, long_tokens, sms, block_us, cta_us, pair_us, pair_block_us):
    """(whole, mixed): the makespan of `lengths` in the 128-channel form alone, and with the heads
    of the sequences of at least `long_tokens` tokens in the pair form (two CTAs a head, started
    first), the rest in the 128-channel form; both longest first."""
    whole = makespan(cta_durations(lengths, hv, block_us, cta_us, True), sms)
    long = [n for n in lengths if n >= long_tokens]
    rest = [n for n in lengths if n < long_tokens]
    busy = [pair_us + pair_block_us * math.ceil(n / BLOCK_TOKENS) for n in long for _ in range(2 * hv)]
    if len(busy) > sms:
        raise ValueError(f"{len(busy)} pair-form CTAs do not fit in one wave of {sms} SMs")
    return whole, makespan(cta_durations(rest, hv, block_us, cta_us, True), sms, busy)


def floor_bytes(lengths, hq, hv, initial, final):
    """SPEC.md's HBM floor in bytes: every input read once, every output written once."""
    tokens = sum(lengths)
    states = (int(initial) + int(final)) * len(lengths) * hv * V * K * 4
    return tokens * (hq * K * (2 + 2 + 4 + 2) + hv * V * (2 + 2 + 2)) + states


# Issue 3's rows: (name, lengths, Hv, initial state, final state, target in us or None for the
# rows at scale, whose target is 60% of the HBM floor). N64-MIXED's lengths are the benchmark's
# own draw, as its results record them.
N64_RESULTS = "results/2026-12-05-nvidia-h200-fused-template/call1/bench-cula/results.json"


def target_rows():
    mixed = next(r["lengths"] for r in json.loads((Path(__file__).parent / N64_RESULTS).read_text())["rows"]
                 if r["row"] == "N64-MIXED-MHA")
    return [
        ("S1-MHA-T64", (64,), 16, False, False, 6.0),
        ("S2-MHA-T1024", (1024,), 16, True, True, 15.0),
        ("S3-MHA-PACKED-T4096", S3, 16, False, True, 60.0),
        ("S4-GVA4-T1024", (1024,), 64, True, True, 30.0),
        ("S5-GVA2-T1024", (1024,), 32, False, True, 20.0),
        ("L32K-MHA", (32768,), 16, False, True, None),
        ("L32K-GVA2", (32768,), 32, False, True, None),
        ("N64-MIXED-MHA", tuple(mixed), 16, False, True, None),
        ("N64-MIXED-GVA2", tuple(mixed), 32, False, True, None),
        ("B8x2K-MHA", (2048,) * 8, 16, False, True, None),
        ("B8x2K-GVA2", (2048,) * 8, 32, False, True, None),
        ("B4x4K-MHA", (4096,) * 4, 16, False, True, None),
        ("B4x4K-GVA2", (4096,) * 4, 32, False, True, None),
    ]


def print_bounds(block_cycles, clock_ghz, sms, bandwidth_tbs):
    block_us = block_cycles / (clock_ghz * 1e3)
    print(f"block {block_cycles} cycles = {block_us:.2f} us at {clock_ghz} GHz; {sms} SMs; "
          f"rows at scale: target 60% of the floor at {bandwidth_tbs} TB/s")
    print("| row | blocks | uncut (block times) | cut: bound (block times), longest segment | "
          "bound at this block (us) | target (us) | block the target allows (cycles) |")
    print("|---|---|---|---|---|---|---|")
    for name, lengths, hv, initial, final, target in target_rows():
        blocks = hv * sum(math.ceil(n / BLOCK_TOKENS) for n in lengths)
        uncut = max(max(math.ceil(n / BLOCK_TOKENS) for n in lengths), blocks / sms)
        bound, longest = cut_bound(lengths, HQ, hv, sms)
        if target is None:
            target = floor_bytes(lengths, HQ, hv, initial, final) / (bandwidth_tbs * 1e6) / 0.6
        allowed = target / bound * clock_ghz * 1e3
        print(f"| {name} | {blocks} | {uncut:.1f} | {bound:.1f}, {longest} | {bound * block_us:.1f} | "
              f"{target:.1f} | {allowed:.0f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--block-us", type=float, default=2.3)
    p.add_argument("--cta-us", type=float, default=6.0)
    p.add_argument("--sms", type=int, default=132)
    p.add_argument("--bounds", action="store_true", help="the bounds of every row with a target")
    p.add_argument("--block-cycles", type=float, default=3491.0)
    p.add_argument("--clock-ghz", type=float, default=1.98)
    p.add_argument("--bandwidth-tbs", type=float, default=4.27)
    p.add_argument("--mixed", action="store_true", help="S3 with its long sequences in the pair form")
    p.add_argument("--long-tokens", type=int, default=600)
    args = p.parse_args()
    if args.mixed:
        # kAuto's fitted block costs (src/contract.cpp): kFusedV128 c = 1.940, kFusedV64 a = 8.19, c = 1.181
        for cta_us in (2.0, 3.0, 4.5):
            try:
                whole, mixed = mixed_forms(S3, 16, args.long_tokens, args.sms, 1.940, cta_us, 8.19, 1.181)
            except ValueError as e:
                p.error(str(e))
            print(f"S3, a 128-channel CTA's start-up {cta_us} us: 128-channel form {whole:.1f} us, "
                  f"sequences of {args.long_tokens}+ tokens in the pair form {mixed:.1f} us ({mixed / whole - 1:+.0%})")
        return 0
    if args.bounds:
        print_bounds(args.block_cycles, args.clock_ghz, args.sms, args.bandwidth_tbs)
        return 0
    import numpy as np

    rows = [("S3", S3), ("B8x2K", (2048,) * 8)]
    rows += [(f"64 in [1,512] #{seed}", tuple(int(x) for x in np.random.default_rng(seed).integers(1, 513, 64)))
             for seed in range(3)]
    for name, lengths in rows:
        ends = [makespan(cta_durations(lengths, 16, args.block_us, args.cta_us, lf), args.sms) for lf in (False, True)]
        print(f"{name:18s} sequence order {ends[0]:7.1f} us  longest first {ends[1]:7.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
