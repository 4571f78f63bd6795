"""Target for Nsight Compute: the fused path forced on one row (argv[1]), three calls."""
import sys
sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
name = sys.argv[1]
cases = {"S2": ((1024,), 16, 16, "gentle"), "B8x2K": ((2048,) * 8, 16, 16, "model"), "S1": ((64,), 16, 16, "gentle")}
lengths, hq, hv, kind = cases[name]
inp = testing.make_inputs(lengths, hq, hv, kind=kind, initial_state=False, seed=3, device="cuda", gen_device="cuda")
for _ in range(3):
    gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                    output_final_state=True, algorithm="fused")
torch.cuda.synchronize()
