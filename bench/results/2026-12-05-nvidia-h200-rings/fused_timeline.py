"""SM-clock marks per block of CTA 0 from the probe build of the fused template (fh2t: branch
fused-template, tools_tmp/scripts/apply_probe_fh2.py): 3 roles x 64 blocks x 10 marks dumped into
the final state. CTA 0 runs item 0: sequence 0 (the longest, placed first), head 0, slice 0.
Form: v64 (one consumer, two solver warpgroups) where N Hv 2 <= SMs, else v128 (two consumers,
two solvers of two warps in one warpgroup). Each solver stamps its own parity: period over 2."""
import os, statistics, sys
sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
NB = int(os.environ.get("NB", "64"))
# The dump overwrites final_state[0 .. 1920): the longest sequence first, so that CTA 0's first item
# is sequence 0's head 0 (no other CTA writes it) where the CTAs take their items longest first.
def longest_first(lengths):
    lengths = list(lengths)
    i = lengths.index(max(lengths))
    return tuple([lengths[i]] + lengths[:i] + lengths[i + 1:])
mixed = longest_first(testing.random_lengths(64, 1, 512, seed=103))
s3 = longest_first((63, 129, 257, 31, 512, 65, 128, 17, 333, 91, 211, 7, 401, 255, 144, 73, 289, 377, 19, 694))
cases = [("S1", (64,), 16, "gentle"), ("S2", (1024,), 16, "gentle"), ("B4x4K", (4096,) * 4, 16, "model"),
         ("L32K", (32768,), 16, "model"), ("B8x2K", (2048,) * 8, 16, "model"),
         ("N64-MIXED-MHA", mixed, 16, "model"), ("S3", s3, 16, "model")]
SEG = {0: ("producer", 1, ["raw/stage wait", "formation", "vote+formed", "empty wait", "slot stores+full"]),
       2: ("solver", 2, ["formed wait", "A/P", "v64: invert / v128: copy + invert", "arrive"]),
       1: ("consumer", 1, ["full wait", "prod1", "U", "O+S+arrive"])}
sms = torch.cuda.get_device_properties(0).multi_processor_count
for name, lengths, hv, kind in cases:
    inp = testing.make_inputs(lengths, 16, hv, kind=kind, initial_state=False, seed=3, device="cuda", gen_device="cuda")
    for _ in range(3):
        o, ht = gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                output_final_state=True, algorithm="fused")
    torch.cuda.synchronize()
    st = ht.flatten()[:3 * NB * 10].view(3, NB, 10).cpu()
    form = "v64" if len(lengths) * hv * 2 <= sms else "v128"  # kernel_params.h fused_slices
    nb = (lengths[0] + 15) // 16  # one CTA per item: CTA 0 runs item 0 (sequence 0, head 0, slice 0)
    nb = min(nb, NB)
    print(f"== {name} ({form}): blocks stamped on CTA 0 = {nb}")
    for role, (rn, stride, segs) in SEG.items():
        R = st[role, :nb]
        print(f" {rn} block0:", [int(x) for x in R[0, :len(segs) + 1]], " last:", [int(x) for x in R[nb - 1, :len(segs) + 1]])
        if nb > 2 * stride + 1:
            lo, hi = (2, nb - 2) if nb > 8 else (0, nb)
            per = statistics.median([(R[i + stride, 0] - R[i, 0]).item() / stride for i in range(lo, min(hi, nb - stride))])
            idx = range(lo, hi)
            sg = [int(statistics.median([(R[i, m + 1] - R[i, m]).item() for i in idx])) for m in range(len(segs))]
            print(f" {rn} per block {per:.0f}:", ", ".join(f"{a} {b}" for a, b in zip(segs, sg)))
