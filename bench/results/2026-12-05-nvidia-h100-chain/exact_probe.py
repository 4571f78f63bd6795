"""Fused path forced on rows whose blocks take the exact path (g ~ U[-50, 0]: every block) or some
of it (mixed, model), graph time; saves each row's output and final state under SAVE (argv[1]) for a
bitwise comparison of two builds (argv[2] = the other build's SAVE, optional)."""
import json, os, statistics, sys
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
from bench import graph_time_ms
save, other = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
os.makedirs(save, exist_ok=True)
mixed = testing.random_lengths(64, 1, 512, seed=103)
cases = [("1x1024-strong", (1024,), 16, ("uniform", -50.0)), ("1x1024-mixed", (1024,), 16, ("mixed", -50.0)),
         ("8x2048-strong", (2048,) * 8, 16, ("uniform", -50.0)), ("8x2048-model", (2048,) * 8, 16, None),
         ("64mixed-strong", mixed, 16, ("uniform", -50.0)), ("1x1024-hv64-strong", (1024,), 64, ("uniform", -50.0))]
res = {}
for name, lengths, hv, decay in cases:
    inp = testing.make_inputs(lengths, 16, hv, kind="model", decay=decay, initial_state=True, seed=5, device="cuda", gen_device="cuda")
    call = lambda: gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                   initial_state=inp["initial_state"], output_final_state=True, algorithm="fused")
    t = statistics.median(graph_time_ms(torch, call, 10, 20)) * 1e3
    o, ht = call()
    torch.cuda.synchronize()
    torch.save({"o": o.cpu(), "ht": ht.cpu()}, os.path.join(save, name + ".pt"))
    line = {"fused_us": t}
    if other and os.path.exists(os.path.join(other, name + ".pt")):
        ref = torch.load(os.path.join(other, name + ".pt"))
        line["bitwise_equal"] = bool(torch.equal(ref["o"].view(torch.int16), o.cpu().view(torch.int16)) and
                                     torch.equal(ref["ht"].view(torch.int32), ht.cpu().view(torch.int32)))
    if sum(lengths) <= 4096:
        ro, rs = gdn2.reference_tokenwise(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                          initial_state=inp["initial_state"])
        line["err_out"] = float(testing.norm_rel_error(o, ro)); line["err_state"] = float(testing.norm_rel_error(ht, rs))
    res[name] = line
    print(name, json.dumps(line), flush=True)
json.dump(res, open(os.path.join(save, "exact_probe.json"), "w"), indent=1)
