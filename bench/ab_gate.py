"""The gate of a same-call A/B run on the device (scripts/device_ab.sh): which variant, if any, earns
the checks (pytest, sanitizers, the final run, the stress test) in the same call.

Reads DIR/<version><round>/results.json (bench.py --out; the round is one digit) of the base and
of each variant and takes each row's best graph time over the rounds. A variant passes when
- its outputs were bit for bit equal to the base's (DIR/compare-<variant>.log, written by
  `bench/outputs_bitwise.py compare` with `rc=<status>` appended, says rc=0), or, for a variant
  named in --numerics-change (one meant to change the arithmetic: another order of sums, other
  operand formats), they were compared (rc=0 or rc=1: both builds ran every problem); its accuracy
  is then for the checks that follow the pick (pytest against the fp64 reference) to judge,
- the geometric mean of its time ratios over the gate rows is at most --max-geomean, where the
  gate rows are the rows whose name starts with one of the --rows prefixes: the rows on which the
  change's code runs (a mean over every row dilutes a change that only some rows run), and
- no row at all is slower by more than --max-row.
Prints one line per variant (its mean, its ratios, pass or not) and `PICK <variant>` (the passing
variant with the lowest mean) or `PICK none`.

With --medians instead (no gate): each row's median graph time over the rounds per version, each
variant's change against the base's median, and the rounds' spread (slowest over fastest round,
base and variant): the account of a same-call A/B run of more than two rounds.

usage: python3 bench/ab_gate.py DIR BASE VARIANT [VARIANT ...] --rows S1,S2,S5,L32K
                                [--max-geomean 0.99] [--max-row 1.01] [--numerics-change V1,V2]
       python3 bench/ab_gate.py DIR BASE VARIANT [VARIANT ...] --medians
"""
import argparse
import json
import math
import re
import statistics
import sys
from pathlib import Path


def round_graph_us(directory, version):
    """Row name -> its graph times (us), one per round DIR/<version><digit>/results.json."""
    times, rounds = {}, 0
    for path in sorted(directory.glob(f"{version}[0-9]/results.json")):
        if not re.fullmatch(re.escape(version) + r"\d", path.parent.name):
            continue
        rounds += 1
        for row in json.loads(path.read_text())["rows"]:
            times.setdefault(row["row"], []).append(row["graph_us"])
    if rounds == 0:
        raise SystemExit(f"ab_gate: no rounds of {version!r} in {directory} (expected {version}1/results.json)")
    return times


def best_graph_us(directory, version):
    """Row name -> best graph time (us) over the rounds."""
    return {name: min(t) for name, t in round_graph_us(directory, version).items()}


def print_medians(directory, base, variants):
    """The --medians table (markdown)."""
    versions = [base, *variants]
    times = {v: round_graph_us(directory, v) for v in versions}
    print("| row | " + " | ".join(f"{v} (us)" for v in versions) + " | "
          + " | ".join(f"{v} / {base}" for v in variants) + " | rounds' spread |")
    print("|---" * (2 * len(versions)) + "|---|")
    for name in times[base]:
        med = {v: statistics.median(times[v][name]) for v in versions if name in times[v]}
        spread = ", ".join(f"{v} {100 * (max(times[v][name]) / min(times[v][name]) - 1):.1f}%" for v in med)
        change = [f"{100 * (med[v] / med[base] - 1):+.1f}%" if v in med else "-" for v in variants]
        cells = [f"{med[v]:.1f}" if v in med else "-" for v in versions]
        print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(change) + f" | {spread} |")


def compare_status(directory, variant):
    """The exit status of outputs_bitwise.py's compare (0: bit for bit equal, 1: the builds differ,
    else it failed), or None where there is no log."""
    log = directory / f"compare-{variant}.log"
    last = log.read_text().strip().splitlines()[-1:] if log.exists() else []
    return int(last[0][3:]) if last and re.fullmatch(r"rc=\d+", last[0]) else None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("base")
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--rows", help="comma-separated prefixes of the gate rows (required without --medians)")
    parser.add_argument("--medians", action="store_true", help="the medians' table instead of the gate")
    parser.add_argument("--max-geomean", type=float, default=0.99)
    parser.add_argument("--max-row", type=float, default=1.01)
    parser.add_argument("--numerics-change", default="",
                        help="comma-separated variants whose outputs may differ from the base's")
    args = parser.parse_args(argv)
    if args.medians:
        print_medians(args.dir, args.base, args.variants)
        return
    if not args.rows:
        parser.error("--rows is required (or --medians)")
    numerics_change = {v for v in args.numerics_change.split(",") if v}
    prefixes = [p for p in args.rows.split(",") if p]
    base = best_graph_us(args.dir, args.base)
    gate_rows = [name for name in base if any(name.startswith(p) for p in prefixes)]
    if not gate_rows:
        raise SystemExit(f"ab_gate: no row of {args.base!r} starts with any of {prefixes}")
    pick, pick_mean = None, math.inf
    for variant in args.variants:
        times = best_graph_us(args.dir, variant)
        ratios = {name: times[name] / base[name] for name in base if name in times}
        missing = [name for name in base if name not in times]
        present = [n for n in gate_rows if n in ratios]
        mean = math.exp(sum(math.log(ratios[n]) for n in present) / len(present)) if present else math.inf
        status = compare_status(args.dir, variant)
        if variant in numerics_change:
            outputs_ok = status in (0, 1)
            verdict = ("numerics change, outputs compared (" + ("bit for bit equal" if status == 0 else "they differ") + ")"
                       if outputs_ok else "numerics change, outputs NOT compared")
        else:
            outputs_ok = status == 0
            verdict = "bit for bit " + ("equal" if outputs_ok else "NOT equal or not compared")
        ok = outputs_ok and not missing and mean <= args.max_geomean and max(ratios.values()) <= args.max_row
        print(f"{variant}: gate-row mean {mean:.4f}, {verdict}"
              f"{', missing rows ' + ','.join(missing) if missing else ''}, "
              + ", ".join(f"{n} {r:.4f}" for n, r in ratios.items()) + f" -> {'pass' if ok else 'fail'}")
        if ok and mean < pick_mean:
            pick, pick_mean = variant, mean
    print(f"PICK {pick or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
