"""Experiment: run one build on fixed inputs and save o, final_state (bit-identity check between builds).
usage: PYTHONPATH=<build>/python python3 dump_outputs.py OUT.pt"""
import sys
import torch
import gdn2
from gdn2 import testing

cases = [
    ("S1", (64,), 16, 16, {}),
    ("S2h0", (1024,), 16, 16, {"initial_state": True}),
    ("T2K", (2048,), 16, 16, {}),
    ("GVA4", (1024,), 16, 64, {}),
    ("mixed", testing.random_lengths(20, 1, 400, 3), 4, 8, {"decay": ("mixed", -60.0)}),
    ("strong", (700,), 2, 2, {"decay": ("uniform", -50.0)}),
    ("B8x2K", (2048,) * 8, 16, 16, {}),
]
res = {}
for name, lengths, hq, hv, kw in cases:
    inp = testing.make_inputs(lengths, hq, hv, kind="model", seed=5, device="cuda", gen_device="cuda", **kw)
    o, ht = gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                           initial_state=inp["initial_state"], output_final_state=True)
    torch.cuda.synchronize()
    res[name] = (o.cpu(), ht.cpu())
torch.save(res, sys.argv[1])
print("saved", sys.argv[1], list(res))
