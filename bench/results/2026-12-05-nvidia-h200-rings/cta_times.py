"""Per-CTA start, first-block and end times (globaltimer, ns) of the fused kernel from the probe build
(apply_probe_cta.py in this folder), against the call's event time; also each CTA's count of exact-path blocks."""
import json, os, statistics, sys
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
from bench import scale_rows
rows = {r.name: r for r in list(testing.CANONICAL_ROWS) + list(scale_rows(testing.Row, testing.random_lengths))}
sms = torch.cuda.get_device_properties(0).multi_processor_count
res = {}
import dataclasses
for name in sys.argv[1].split(","):
    # NAME:gentle runs the row on the gentle input family (no exact-path blocks): a control
    base, _, kind = name.partition(":")
    row = rows[base] if not kind else dataclasses.replace(rows[base], kind=kind)
    inp = testing.row_inputs(row, gen_device="cuda")
    call = lambda: gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                   initial_state=inp["initial_state"], output_final_state=True, algorithm="fused")
    for _ in range(3): call()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); o, ht = call(); b.record(); b.synchronize()
    ev_us = a.elapsed_time(b) * 1e3
    N, Hv = len(row.lengths), row.hv
    slices = (0, 64) if N * Hv * 2 <= sms else (0,)
    bits = ht.contiguous().view(torch.int32).view(N, Hv, 128 * 128).cpu()
    recs = []
    for s in range(N):
        for h in range(Hv):
            for v0 in slices:
                w = [int(x) & 0xffffffff for x in bits[s, h, v0 * 128: v0 * 128 + 8]]
                t0, first, end = (w[0] | w[1] << 32), (w[2] | w[3] << 32), (w[4] | w[5] << 32)
                recs.append({"s": s, "h": h, "v0": v0, "len": row.lengths[s], "t0": t0, "first": first, "end": end, "smid": w[6], "exact": w[7]})
    base = min(r["t0"] for r in recs)
    st = [(r["t0"] - base) / 1e3 for r in recs]; fl = [(r["first"] - r["t0"]) / 1e3 for r in recs]
    du = [(r["end"] - r["t0"]) / 1e3 for r in recs]; en = [(r["end"] - base) / 1e3 for r in recs]
    q = lambda x: f"min {min(x):.1f} p10 {sorted(x)[len(x) // 10]:.1f} med {statistics.median(x):.1f} p90 {sorted(x)[9 * len(x) // 10]:.1f} max {max(x):.1f}"
    per_sm = {}
    for r in recs: per_sm[r["smid"]] = per_sm.get(r["smid"], 0) + 1
    print(f"== {name}: {len(recs)} CTAs, event time of the call {ev_us:.1f} us, span of the CTAs {max(en):.1f} us; "
          f"SMs used {len(per_sm)}, CTAs per SM max {max(per_sm.values())}")
    print(f"  start after the first CTA's (us): {q(st)}")
    print(f"  first block's full wait after the CTA's start (us): {q(fl)}")
    print(f"  CTA duration (us): {q(du)}")
    print(f"  end after the first CTA's start (us): {q(en)}")
    ex = [r["exact"] for r in recs]
    print(f"  exact-path blocks per CTA: total {sum(ex)}, CTAs with any {sum(1 for e in ex if e)}, max {max(ex)}")
    late = sorted(recs, key=lambda r: r["end"])[-5:]
    print("  last five to end:", [(r["s"], r["h"], r["v0"], r["smid"], round((r["t0"] - base) / 1e3, 1), round((r["end"] - r["t0"]) / 1e3, 1), r["exact"]) for r in late])
    res[name] = {"event_us": ev_us, "recs": recs}
json.dump(res, open(os.path.join(os.environ.get("OUT", "/tmp"), "cta_times.json"), "w"))
