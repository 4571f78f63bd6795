"""kAuto's picks on call 4's crossovers (an H100, the build persistent-quads f6966e9: quads in
both persistent forms' state stores), with main's estimates (735ad6d) and with this session's
(kFusedV128Persistent and kFusedV128PairPersistent refitted): the regret of each pick (its
measured time over the fastest path's), the longest length given as the hint. src/contract.cpp's
chunked estimate and the other fused forms' estimates in both. Uses bench/fit_auto.py's
restatement of src/contract.cpp. CPU only.

    python3 bench/results/2026-12-06-persistent-quads/eval_refit.py"""
import importlib.util
import json
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
    print(f"{tag}: " + fa.regret_summary(fa.contract_picks(rows, 132, params, one_round=False)))
