"""SM-clock marks per block of CTA 0 from a -DFUSED_PROBE build (3 roles x 64 blocks x 10 marks in
the final state): per-role period and segment medians."""
import sys, statistics
sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
cases = [("S1", (64,), 16, 16, "gentle"), ("S2", (1024,), 16, 16, "gentle"), ("B8x2K", (2048,) * 8, 16, 16, "model"),
         ("64x16", (16,) * 64, 16, 16, "model")]
SEG = {0: ("producer", ["raw/stage wait", "formation", "empty wait", "stores+vote+arrive"]),
       2: ("solver", ["a_full wait", "A/P", "barrier+tma+copy", "invert", "arrive"]),
       1: ("consumer", ["full wait", "prod1", "U", "O+S+arrive", "out stores"])}
for name, lengths, hq, hv, kind in cases:
    inp = testing.make_inputs(lengths, hq, hv, kind=kind, initial_state=False, seed=3, device="cuda", gen_device="cuda")
    for _ in range(3):
        o, ht = gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                output_final_state=True, algorithm="fused")
    torch.cuda.synchronize()
    st = ht.flatten()[:1920].view(3, 64, 10).cpu()
    nb = min(64, (lengths[0] + 15) // 16)
    print(f"== {name}: blocks of CTA 0 = {nb}")
    for role, (rn, segs) in SEG.items():
        R = st[role, :nb]
        print(f" {rn} block0 marks:", [int(x) for x in R[0, :len(segs) + 1]], " last:", [int(x) for x in R[nb - 1, :len(segs) + 1]])
        if nb > 2:
            lo, hi = (1, nb - 1) if nb > 4 else (0, nb)
            per = statistics.median([(R[i + 1, 0] - R[i, 0]).item() for i in range(lo, min(hi, nb - 1))])
            sg = [int(statistics.median([(R[i, m + 1] - R[i, m]).item() for i in range(lo, hi)])) for m in range(len(segs))]
            print(f" {rn} per block {per:.0f}:", ", ".join(f"{a} {b}" for a, b in zip(segs, sg)))
