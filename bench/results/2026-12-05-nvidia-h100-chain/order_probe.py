"""The fused path forced (and auto with the hint) on rows of several rounds of the 128-channel form's
CTAs, graph time; saves outputs under SAVE (argv[1]) and compares them bitwise with another build's
SAVE (argv[2], optional): longest-first ordering must not change a bit."""
import json, os, statistics, sys
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
from bench import graph_time_ms
save, other = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
os.makedirs(save, exist_ok=True)
S3 = (63, 129, 257, 31, 512, 65, 128, 17, 333, 91, 211, 7, 401, 255, 144, 73, 289, 377, 19, 694)
mixed = testing.random_lengths(64, 1, 512, seed=103)
cases = [("S3", S3, 16, 16, "gentle", 6653), ("S3-model", S3, 16, 16, "model", 3),
         ("N64-MIXED-MHA", mixed, 16, 16, "model", 103), ("N64-MIXED-GVA2", mixed, 16, 32, "model", 104),
         ("mixed128x256", testing.random_lengths(128, 1, 256, seed=103), 16, 16, "model", 7),
         ("mixed32x1024", testing.random_lengths(32, 1, 1024, seed=103), 16, 16, "model", 8),
         ("B8x2K (one round)", (2048,) * 8, 16, 16, "model", 105), ("S2 (v64)", (1024,), 16, 16, "gentle", 6652),
         ("300x1-40 (unordered)", testing.random_lengths(300, 1, 40, seed=131), 1, 1, "model", 9)]
res = {}
for name, lengths, hq, hv, kind, seed in cases:
    inp = testing.make_inputs(lengths, hq, hv, kind=kind, initial_state=False, seed=seed, device="cuda", gen_device="cuda")
    def call(algorithm="fused", hint=None):
        return gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                               output_final_state=True, algorithm=algorithm, max_seqlen=hint)
    line = {"fused_us": statistics.median(graph_time_ms(torch, call, 4, 20)) * 1e3,
            "auto_hint_us": statistics.median(graph_time_ms(torch, lambda: call("auto", max(lengths)), 4, 20)) * 1e3}
    o, ht = call()
    torch.cuda.synchronize()
    key = name.split(" ")[0]
    torch.save({"o": o.cpu(), "ht": ht.cpu()}, os.path.join(save, key + ".pt"))
    if other and os.path.exists(os.path.join(other, key + ".pt")):
        ref = torch.load(os.path.join(other, key + ".pt"))
        line["bitwise_equal"] = bool(torch.equal(ref["o"].view(torch.int16), o.cpu().view(torch.int16)) and
                                     torch.equal(ref["ht"].view(torch.int32), ht.cpu().view(torch.int32)))
    res[name] = line
    print(f"{name:22s}", json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in line.items()}), flush=True)
json.dump(res, open(os.path.join(save, "order_probe.json"), "w"), indent=1)
