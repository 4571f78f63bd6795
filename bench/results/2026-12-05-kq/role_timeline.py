"""SM-clock marks per role and block of CTA 0 from a probe build (apply_probe_roles.py in this
folder): 3 roles x 64 blocks x 10 marks dumped into the final state. Prints, per row, the median
cycles per block of each role and of its segments over blocks 2 .. 61 (each solver takes every
other block: its period is over 2). After the rings folder's fused_timeline.py.
usage: PYTHONPATH=python python3 role_timeline.py"""
import statistics

import torch

import gdn2
from gdn2 import testing

NB = 64


def longest_first(lengths):
    lengths = list(lengths)
    i = lengths.index(max(lengths))
    return tuple([lengths[i]] + lengths[:i] + lengths[i + 1:])


mixed = longest_first(testing.random_lengths(64, 1, 512, seed=103))
cases = [("S1", (64,), 16), ("B8x2K", (2048,) * 8, 16), ("N64-MIXED-MHA", mixed, 16), ("L2K-v64", (2048,), 16)]
SEG = {0: ("producer", 1, ["raw/stage wait", "formation", "vote+formed", "empty wait", "slot stores+full"]),
       2: ("solver", 2, ["formed wait", "A/P (+copy v128)", "invert", "arrive"]),
       1: ("consumer", 1, ["full wait", "prod1", "U", "O+S+arrive"])}
sms = torch.cuda.get_device_properties(0).multi_processor_count
for name, lengths, hv in cases:
    inp = testing.make_inputs(lengths, 16, hv, kind="model", initial_state=False, seed=3, device="cuda", gen_device="cuda")
    for _ in range(3):
        o, ht = gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                output_final_state=True, algorithm="fused")
    torch.cuda.synchronize()
    st = ht.flatten()[:3 * NB * 10].view(3, NB, 10).cpu()
    form = "v64" if len(lengths) * hv * 2 <= sms else "v128"
    nb = min((lengths[0] + 15) // 16, NB)
    print(f"== {name} ({form}): blocks stamped on CTA 0 = {nb}")
    for role, (rn, stride, segs) in SEG.items():
        R = st[role, :nb]
        print(f" {rn} block0:", [int(x) for x in R[0, :len(segs) + 1]], " last:", [int(x) for x in R[nb - 1, :len(segs) + 1]])
        if nb > 2 * stride + 1:
            lo, hi = (2, nb - 2) if nb > 8 else (0, nb)
            per = statistics.median([(R[i + stride, 0] - R[i, 0]).item() / stride for i in range(lo, min(hi, nb - stride))])
            sg = [int(statistics.median([(R[i, m + 1] - R[i, m]).item() for i in range(lo, hi)])) for m in range(len(segs))]
            print(f" {rn} per block {per:.0f}:", ", ".join(f"{a} {b}" for a, b in zip(segs, sg)))
