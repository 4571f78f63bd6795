"""SM-clock marks per block of CTA 0 from a -DFUSED_PROBE build of the two-solver fused kernel
(3 roles x 64 blocks x 10 marks in the final state): per-role period and segment medians. The
solver's marks come from the warpgroup of each block's parity, so its period is over two blocks."""
import sys, statistics
sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
cases = [("S1", (64,), 16, 16, "gentle"), ("S2", (1024,), 16, 16, "gentle"), ("B8x2K", (2048,) * 8, 16, 16, "model")]
SEG = {0: ("producer", 1, ["raw/stage wait", "formation", "vote+formed", "empty wait", "slot stores+full"]),
       2: ("solver", 2, ["formed wait", "A/P", "invert (warp 0)", "arrive"]),
       1: ("consumer", 1, ["acc_to_a+full wait", "prod1+prev stores", "U", "O+S+arrive"])}
for name, lengths, hq, hv, kind in cases:
    inp = testing.make_inputs(lengths, hq, hv, kind=kind, initial_state=False, seed=3, device="cuda", gen_device="cuda")
    for _ in range(3):
        o, ht = gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                output_final_state=True, algorithm="fused")
    torch.cuda.synchronize()
    st = ht.flatten()[:1920].view(3, 64, 10).cpu()
    nb = min(64, (lengths[0] + 15) // 16)
    print(f"== {name}: blocks of CTA 0 = {nb}")
    for role, (rn, stride, segs) in SEG.items():
        R = st[role, :nb]
        print(f" {rn} block0 marks:", [int(x) for x in R[0, :len(segs) + 1]], " last:", [int(x) for x in R[nb - 1, :len(segs) + 1]])
        if nb > 2 * stride:
            lo, hi = (2, nb - 2) if nb > 8 else (0, nb)
            per = statistics.median([(R[i + stride, 0] - R[i, 0]).item() / stride for i in range(lo, min(hi, nb - stride))])
            sg = [int(statistics.median([(R[i, m + 1] - R[i, m]).item() for i in range(lo, hi)])) for m in range(len(segs))]
            print(f" {rn} per block {per:.0f}:", ", ".join(f"{a} {b}" for a, b in zip(segs, sg)))
