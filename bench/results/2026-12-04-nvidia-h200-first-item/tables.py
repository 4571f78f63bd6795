"""Same-call tables of this directory's calls: graph us, best of the two rounds, change against base.
usage: python3 tables.py N   (N = call number; reads callN-lengths.jsonl and callN-rows-*.md)"""
import collections
import glob
import json
import re
import sys

n = sys.argv[1]
builds, lengths = [], collections.defaultdict(dict)
for line in open(f"call{n}-lengths.jsonl"):
    d = json.loads(line)
    b = d["build"][:-1]  # the tag is build + round
    if b not in builds:
        builds.append(b)
    key = (d["T"], d["hq"], d["hv"])
    lengths[key][b] = min(lengths[key].get(b, 1e9), d["graph_us"])
rows = collections.defaultdict(dict)
for path in sorted(glob.glob(f"call{n}-rows-*.md")):
    b = re.match(rf"call{n}-rows-(.*)[12]\.md", path).group(1)
    for line in open(path):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 7 and re.match(r"^(S\d|L32K|N64|B\d)", cells[1]):
            rows[cells[1]][b] = min(rows[cells[1]].get(b, 1e9), float(cells[6]))
others = [b for b in builds if b != "base"]
head = "| case | base | " + " | ".join(others) + " |"
print(f"Call {n}: graph us, best of two rounds; change against base in the same call.\n")
print(head)
print("|" + "---|" * (2 + len(others)))
def line(name, v):
    cells = [f"{v[b]:.1f} ({(v[b] / v['base'] - 1) * 100:+.1f}%)" for b in others]
    print(f"| {name} | {v['base']:.1f} | " + " | ".join(cells) + " |")
for (T, hq, hv), v in lengths.items():
    line(f"one sequence, {T} tokens, {hq} key / {hv} value heads", v)
for name, v in rows.items():
    line(name, v)
