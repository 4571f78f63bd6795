"""kAuto's picks on call C's crossovers (an H100, the build merge-ab b74c7dc: both persistent
forms), with main's estimates (cdd311c: the persistent pair priced as the one-cluster-per-item
pair, the recurrent path's rounds at 1.3 + 0.27 L) and with this session's (kFusedV128Persistent
refitted, kFusedV128PairPersistent, kRecurrentRoundFloor): the regret of each pick (its measured
time over the fastest path's), the longest length given as the hint. src/contract.cpp's chunked
estimate in both. Uses bench/fit_auto.py's restatement of src/contract.cpp. CPU only.

    python3 bench/results/2026-12-06-persistent-pair-4096/eval_refit.py"""
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
    with open(os.path.join(HERE, "callC", f"crossover-{name}", "crossover.json")) as f:
        rows += json.load(f)["rows"]
MAIN = {2: (8.19, 1.181, 0), 1: (4.40, 1.940, 9.03), 0: (16.15, 1.498, 9.12), 3: (14.35, 1.780, 4.87)}
MAIN[4] = MAIN[0]  # main priced the persistent pair as the one-cluster-per-item pair
NEW = dict(MAIN)
NEW[3] = (15.44, 1.787, 4.64)
NEW[4] = (18.76, 1.385, 4.72)


def recurrent_main(r, sms):
    items = r["N"] * r["Hv"] * fa.RECURRENT_SLICES
    if items <= sms:
        return 3.3 + 0.195 * r["max_seqlen"]
    return 2.0 + math.ceil(items / (fa.RECURRENT_CTAS_PER_SM * sms)) * (1.3 + 0.27 * r["max_seqlen"])


for tag, params, recurrent in (("main's estimates", MAIN, recurrent_main), ("this session's", NEW, fa.recurrent_us)):
    print(f"{tag}: " + fa.regret_summary(fa.contract_picks(rows, 132, params, recurrent, one_round=False)))
