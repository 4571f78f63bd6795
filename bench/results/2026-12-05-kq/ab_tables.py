"""The same-call A/B tables of this folder's README: for callN/ab-<version>-<round>/results.json,
each row's graph times per round and its best over the rounds against the base's best.
usage: python3 ab_tables.py CALL BASE VERSION [VERSION ...]   (e.g. call5 f kq2 k32)"""
import json
import math
import sys
from pathlib import Path


def main(call, versions):
    here = Path(__file__).resolve().parent / call
    rows = {}
    for v in versions:
        for path in sorted(here.glob(f"ab-{v}-[0-9]/results.json")):
            for r in json.loads(path.read_text())["rows"]:
                rows.setdefault(r["row"], {}).setdefault(v, []).append(r["graph_us"])
    base = versions[0]
    print("| row | " + " | ".join(versions) + " |")
    print("|---|" + "---|" * len(versions))
    logs = {v: [] for v in versions}
    for name, d in rows.items():
        cells = []
        for v in versions:
            ratio = min(d[v]) / min(d[base])
            logs[v].append(math.log(ratio))
            runs = " / ".join(f"{x:.1f}" for x in d[v])
            cells.append(runs if v == base else f"{runs} ({ratio:.3f})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| geomean of best-over-rounds ratios | " + " | ".join(f"{math.exp(sum(x) / len(x)):.4f}" for x in logs.values()) + " |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
