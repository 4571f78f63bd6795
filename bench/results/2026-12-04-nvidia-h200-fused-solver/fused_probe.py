"""Probe: graph time of auto vs fused (and chunked/recurrent) on the canonical rows, the rows at scale
and short shapes; fused's error against the fp64 reference on the small ones."""
import json, os, statistics, sys, time
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
from bench import graph_time_ms, scale_rows
rows = list(testing.CANONICAL_ROWS) + list(scale_rows(testing.Row, testing.random_lengths))
extra = [("1x16", (16,), 16, 16), ("1x128", (128,), 16, 16), ("1x256", (256,), 16, 16), ("128x1", (1,) * 128, 16, 16),
         ("64x4-h0", (4,) * 64, 16, 16), ("64x16", (16,) * 64, 16, 16), ("32x64", (64,) * 32, 16, 16),
         ("1x64-hv64", (64,), 16, 64)]
for name, lengths, hq, hv in extra:
    rows.append(testing.Row(name, lengths, hq, hv, name.endswith("h0"), True, "model", 7))
algos = sys.argv[1].split(",") if len(sys.argv) > 1 else ["auto", "fused"]
res = {}
for row in rows:
    inp = testing.row_inputs(row, gen_device="cuda")
    def call(alg):
        return gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                               initial_state=inp["initial_state"], output_final_state=row.final_state, algorithm=alg)
    line = {}
    for alg in algos:
        t = graph_time_ms(torch, lambda: call(alg), 10, 20)
        line[alg] = statistics.median(t) * 1e3
    T = sum(row.lengths)
    if T <= 5000:
        o = call("fused"); o = o[0] if isinstance(o, tuple) else o
        ro, rs = gdn2.reference_tokenwise(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
                                          cu_seqlens=inp["cu_seqlens"], initial_state=inp["initial_state"])
        line["err_fused"] = float(testing.norm_rel_error(o, ro))
    res[row.name] = line
    print(row.name, " ".join(f"{k}={v:.4g}" for k, v in line.items()), flush=True)
os.makedirs(os.environ.get("OUT", "/tmp"), exist_ok=True)
json.dump(res, open(os.path.join(os.environ.get("OUT", "/tmp"), "probe.json"), "w"), indent=1)
