"""kAuto's picks on call 4's crossovers (an H100, the persistent form's build), with main's fused
constants and with the persistent form's fitted apart (src/contract.cpp, kFusedV128Persistent):
the regret of each pick (its measured time over the fastest path's), the longest length given as
the hint. Uses bench/fit_auto.py's restatement of src/contract.cpp's estimates. CPU only.

    python3 bench/results/2026-12-06-persistent/eval_refit.py"""
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
    with open(os.path.join(HERE, "call4", name, "crossover.json")) as f:
        rows += json.load(f)["rows"]
MAIN = {2: (8.19, 1.181, 0), 1: (4.40, 1.940, 9.03), 0: (16.15, 1.498, 9.12)}
REFIT = dict(MAIN)
REFIT[3] = (14.35, 1.780, 4.87)
for tag, params, persistent in (("main's constants", MAIN, False), ("with the persistent form's", REFIT, True)):
    regrets, off = [], []
    for r in rows:
        timed = [a for a in fa.ALGORITHMS if fa.usable(r, a)]
        est = {"chunked": fa.chunked_us(r, 132), "recurrent": fa.recurrent_us(r, 132)}
        s, _, _ = fa.fused_form(r["N"], r["Hv"], 132)
        est["fused"] = fa.fused_us(r, 132, params, True, persistent) * (fa.FUSED_MARGIN[2] if s == 2 else fa.FUSED_MARGIN[1])
        pick = min(timed, key=lambda a: est[a])
        best = min(timed, key=lambda a: r[f"{a}_us"])
        regrets.append(r[f"{pick}_us"] / r[f"{best}_us"])
        if pick != best:
            off.append(f"{r['name']} ({pick}, {regrets[-1]:.3f})")
    geomean = math.exp(sum(map(math.log, regrets)) / len(regrets))
    print(f"{tag}: {len(regrets)} shapes, regret geomean {geomean:.4f}, max {max(regrets):.3f}, "
          f"{len(off)} off the fastest: {', '.join(off)}")
