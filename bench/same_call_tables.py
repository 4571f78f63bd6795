"""Same-call tables of a results directory's device calls: graph us, best of the rounds of each
version, and the change against a base version measured in the same call.

usage: python3 bench/same_call_tables.py DIR N [BASE]
  reads DIR/callN-rows-<version><round>.md (bench.py's results.md; the round one digit, 1 to 9) and,
  where present, DIR/callN-lengths.jsonl (bench/sequence_lengths.py, tagged <version><round>); BASE
  defaults to "base"; the other versions are listed in the order they first appear."""
import collections
import json
import re
import sys
from pathlib import Path


def main(directory, n, base):
    d = Path(directory)
    versions, lengths = [], collections.defaultdict(dict)
    jsonl = d / f"call{n}-lengths.jsonl"
    if jsonl.exists():
        for line in jsonl.read_text().splitlines():
            rec = json.loads(line)
            v = rec["build"][:-1]  # the tag is version + round
            versions.append(v) if v not in versions else None
            key = (rec["T"], rec["hq"], rec["hv"])
            lengths[key][v] = min(lengths[key].get(v, 1e9), rec["graph_us"])
    rows = collections.defaultdict(dict)
    round_tags = set()
    for path in sorted(d.glob(f"call{n}-rows-*.md")):
        round_tags.add(path.name[-4])
        v = re.match(rf"call{n}-rows-(.*)\d\.md", path.name).group(1)
        versions.append(v) if v not in versions else None
        for line in path.read_text().splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 7 and re.match(r"^(S\d|L32K|N64|B\d)", cells[1]):
                rows[cells[1]][v] = min(rows[cells[1]].get(v, 1e9), float(cells[6]))
    others = [v for v in versions if v != base]
    rounds = {1: "one", 2: "two", 3: "three"}.get(len(round_tags), str(len(round_tags))) if round_tags else "the"
    print(f"Call {n}: graph us, best of {rounds} rounds; change against {base} in the same call.\n")
    print(f"| case | {base} | " + " | ".join(others) + " |")
    print("|" + "---|" * (2 + len(others)))

    def line(name, t):
        cells = [f"{t[v]:.1f} ({(t[v] / t[base] - 1) * 100:+.1f}%)" for v in others]
        print(f"| {name} | {t[base]:.1f} | " + " | ".join(cells) + " |")

    for (T, hq, hv), t in lengths.items():
        line(f"one sequence, {T} tokens, {hq} key / {hv} value heads", t)
    for name, t in rows.items():
        line(name, t)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "base")
