"""kAuto's picks on call 4's crossovers (an H100, the build persistent-quads f6966e9: quads in
both persistent forms' state stores), with main's estimates (735ad6d) and with this session's
(kFusedV128Persistent and kFusedV128PairPersistent refitted): the regret of each pick (its
measured time over the fastest path's), the longest length given as the hint. src/contract.cpp's
chunked estimate and the other fused forms' estimates in both. Uses bench/fit_auto.py's
restatement of src/contract.cpp. CPU only.

    python3 bench/results/2026-12-06-persistent-quads/eval_refit.py"""
import importlib.util
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fit_auto", os.path.join(HERE, "..", "..", "fit_auto.py"))
fa = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fa)

rows = []
for name in ("short", "long"):
    with open(os.path.join(HERE, "call4", f"crossover-{name}", "crossover.json")) as f:
        rows += json.load(f)["rows"]
MAIN = {2: (8.19, 1.181, 0), 1: (4.40, 1.940, 9.03), 0: (16.15, 1.498, 9.12), 3: (15.44, 1.787, 4.64),
        4: (18.76, 1.385, 4.72)}
NEW = dict(MAIN)
NEW[3] = tuple(float(x) for x in os.environ.get("NEW3", "5.98,1.817,2.91").split(","))
NEW[4] = tuple(float(x) for x in os.environ.get("NEW4", "19.19,1.474,1.69").split(","))

for tag, params in (("main's estimates", MAIN), ("this session's", NEW)):
    regrets, off = [], []
    for r in rows:
        timed = [a for a in fa.ALGORITHMS if fa.usable(r, a)]
        est = {"chunked": fa.chunked_us(r, 132), "recurrent": fa.recurrent_us(r, 132)}
        s, _, _ = fa.fused_form(r["N"], r["Hv"], 132)
        est["fused"] = fa.fused_us(r, 132, params, True, True) * (fa.FUSED_MARGIN[2] if s == 2 else fa.FUSED_MARGIN[1])
        best = min(timed, key=lambda a: r[f"{a}_us"])
        pick = min(timed, key=lambda a: est[a])
        regret = r[f"{pick}_us"] / r[f"{best}_us"]
        regrets.append(regret)
        if regret > 1.0:
            off.append(f"{r['name']} {pick} for {best} {regret:.3f}")
    geo = math.exp(sum(math.log(x) for x in regrets) / len(regrets))
    print(f"{tag}: {len(rows)} shapes, regret geomean {geo:.3f}, max {max(regrets):.3f}, {len(off)} off: " + "; ".join(off))
