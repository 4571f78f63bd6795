"""A list-scheduling model of the fused path's 128-channel form: when do its CTAs end, taken in
sequence order or longest sequence first (docs/performance.md, "The fused path's CTAs longest
sequence first"). CPU only.

    python3 bench/fused_order_model.py [--block-us 2.3] [--cta-us 6] [--sms 132]

Every CTA (one per sequence and value head, one per SM at a time) costs cta_us + block_us x its
sequence's 16-token blocks; each SM takes the next CTA in launch order when it frees (greedy list
scheduling). Prints the makespan in launch order (sequence order) and longest first, for S3's
lengths (SPEC.md), three draws of 64 lengths uniform in [1, 512] (numpy; the benchmark's own
N64-MIXED lengths come from torch's generator), and B8x2K.
"""

import argparse
import heapq
import math


def makespan(durations, sms):
    """The end of the last of `durations` run greedily, in order, on `sms` machines."""
    free = [0.0] * sms
    end = 0.0
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


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--block-us", type=float, default=2.3)
    p.add_argument("--cta-us", type=float, default=6.0)
    p.add_argument("--sms", type=int, default=132)
    args = p.parse_args()
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
