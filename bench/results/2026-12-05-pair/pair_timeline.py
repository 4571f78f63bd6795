"""SM-clock marks per role and block of CTA 0 from a probe build of the pair form
(apply_probe_pair.py): 3 roles x 32 blocks x 8 marks dumped into the final state. Prints, per
case, the median cycles per block of each role and of its segments over blocks 4 .. 27 (CTA 0
forms the even blocks: producer and solver marks exist for those only).
usage: PYTHONPATH=python python3 pair_timeline.py"""
import statistics

import torch

import gdn2
from gdn2 import testing

NB, NM = 32, 8
cases = [("S2 (1 x 1024)", (1024,), 16), ("B4x4K-MHA", (4096,) * 4, 16)]
SEG = {0: ("producer", 2, ["raw/stage wait", "formation", "slot wait", "kq+wv", "vote+formed", "slot stores+full", "copies"]),
       2: ("solver", 2, ["formed wait", "A/P+invert", "arrive", "full wait+copy"]),
       1: ("consumer", 1, ["full wait", "prod1", "U", "O+S+arrive"])}
for name, lengths, hv in cases:
    inp = testing.make_inputs(lengths, 16, hv, kind="model", initial_state=False, seed=3, device="cuda", gen_device="cuda")
    for _ in range(3):
        o, ht = gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                output_final_state=True, algorithm="fused")
    torch.cuda.synchronize()
    st = ht.flatten()[:3 * NB * NM].view(3, NB, NM).cpu()
    print(f"== {name}")
    for role, (rn, stride, segs) in SEG.items():
        R = st[role]
        blocks = range(4, 28, stride)
        print(f" {rn} block0:", [int(x) for x in R[0, :len(segs) + 1]], " block 28:", [int(x) for x in R[28, :len(segs) + 1]])
        per = statistics.median([(R[i + stride, 0] - R[i, 0]).item() / stride for i in blocks])
        sg = [int(statistics.median([(R[i, m + 1] - R[i, m]).item() for i in blocks])) for m in range(len(segs))]
        print(f" {rn} per block {per:.0f}:", ", ".join(f"{a} {b}" for a, b in zip(segs, sg)))
