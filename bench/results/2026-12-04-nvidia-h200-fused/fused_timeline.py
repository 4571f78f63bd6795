import sys, statistics
sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
cases = [("S1", (64,), 16, 16, "gentle"), ("S2", (1024,), 16, 16, "gentle"), ("B8x2K", (2048,) * 8, 16, 16, "model"),
         ("64x16", (16,) * 64, 16, 16, "model")]
for name, lengths, hq, hv, kind in cases:
    inp = testing.make_inputs(lengths, hq, hv, kind=kind, initial_state=False, seed=3, device="cuda", gen_device="cuda")
    for _ in range(3):
        o, ht = gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                output_final_state=True, algorithm="fused")
    torch.cuda.synchronize()
    st = ht.flatten()[:1280].view(2, 64, 10).cpu()
    nb = min(64, (lengths[0] + 15) // 16)
    print(f"== {name}: blocks of CTA 0 = {nb}")
    P, C = st[0, :nb], st[1, :nb]
    print(" producer marks (cycles from base) block0:", [int(x) for x in P[0]])
    print(" consumer block0:", [int(x) for x in C[0]])
    if nb > 2:
        per = [(P[i + 1, 0] - P[i, 0]).item() for i in range(1, nb - 1)]
        print(" producer per block:", statistics.median(per))
        segs = [statistics.median([(P[i, m + 1] - P[i, m]).item() for i in range(1, nb - 1)]) for m in range(7)]
        print(" raw wait:", statistics.median([(P[i, 8] - P[i, 0]).item() for i in range(1, nb - 1)]))
        print(" producer segments (form, emptywait, stores+vote, kq+loads, ap, barrier, inv+arrive):", [int(x) for x in segs])
        print(" consumer invert end - full wait end:", statistics.median([(C[i, 6] - C[i, 1]).item() for i in range(1, nb - 1)]))
        perc = [(C[i + 1, 0] - C[i, 0]).item() for i in range(1, nb - 1)]
        print(" consumer per block:", statistics.median(perc))
        segc = [statistics.median([(C[i, m + 1] - C[i, m]).item() for i in range(1, nb - 1)]) for m in range(5)]
        print(" consumer segments (fullwait, prod1, U, O+S, stores):", [int(x) for x in segc])
