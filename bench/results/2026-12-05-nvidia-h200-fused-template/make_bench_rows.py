"""Builds fit-bench-rows.json, the bench rows as crossover rows for bench/fit_auto.py:
the chunked path's graph time from call 2's bench (auto took the chunked path on these rows:
kAuto was not yet refitted) and the fused path's graph time forced, from call 1's probe of fh2
(the same kernels as call 2's build: SASS identical). S1 is left out (auto took the fused path).
    python3 make_bench_rows.py > fit-bench-rows.json   (run in this folder)"""
import json
import sys

bench = json.load(open("call2/bench/results.json"))
probe = json.load(open("call1/probe-fh2-1/probe.json"))
rows = []
for r in bench["rows"]:
    name = r["row"]
    if name.startswith("S1") or name not in probe:
        continue
    fused, chunked = probe[name]["fused"], r["graph_us"]
    rows.append({"name": name, "T": r["tokens"], "N": r["sequences"], "Hq": r["hq"], "Hv": r["hv"],
                 "max_seqlen": max(r["lengths"]), "chunked_us": chunked, "recurrent_us": float("nan"),
                 "fused_us": fused, "best": "fused" if fused < chunked else "chunked"})
json.dump({"meta": {"source": "call2/bench (chunked, graph) + call1/probe-fh2-1 (fused forced, graph)"},
           "rows": rows}, sys.stdout, indent=1)
