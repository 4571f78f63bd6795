"""kAuto's picks on call 3's crossovers (an H100, the build persistent-one-round 3ef32d3, where the
persistent fused forms also run within one round of the SMs): the regret of each pick (its
measured time over the fastest path's), the longest length given as the hint, with the estimates
as they are (src/contract.cpp; bench/fit_auto.py's restatement, contract_picks) and, for
comparison, with the persistent forms' estimates refitted on these crossovers (PARAMS3,
PARAMS4: `python3 bench/fit_auto.py --gva-pair --persistent --persistent-one-round
call3/crossover-short/crossover.json call3/crossover-long/crossover.json`). CPU only.

    python3 bench/results/2026-12-06-persistent-one-round/eval_picks.py"""
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fit_auto", os.path.join(HERE, "..", "..", "fit_auto.py"))
fa = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fa)

rows = []
for name in ("short", "long"):
    with open(os.path.join(HERE, "call3", f"crossover-{name}", "crossover.json")) as f:
        rows += json.load(f)["rows"]
NOW = {2: (8.19, 1.181, 0), 1: (4.40, 1.940, 9.03), 0: (16.15, 1.498, 9.12), 3: (5.98, 1.817, 2.91),
       4: (19.19, 1.474, 1.69)}
REFIT = dict(NOW)
REFIT[3] = tuple(float(x) for x in os.environ.get("PARAMS3", "5.98,1.817,2.91").split(","))
REFIT[4] = tuple(float(x) for x in os.environ.get("PARAMS4", "19.19,1.474,1.69").split(","))

for tag, params in (("the estimates as they are", NOW), ("refitted", REFIT)):
    print(f"{tag}: " + fa.regret_summary(fa.contract_picks(rows, 132, params)))
