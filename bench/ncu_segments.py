"""Warp-stall samples of one kernel, grouped into the stretches of SASS between CTA barriers.

Input: the SASS source page of an Nsight Compute report with source counters, as CSV:
  ncu --import prof.ncu-rep --page source --csv --print-source sass > source.csv
(profile with --section SourceCounters, e.g. through bench/ncu_rows.py). For every stretch that
holds at least 1% of the samples it prints its first instruction, its length in instructions, its
share of the samples, the warp instructions it executed, its top four stall reasons and its most
executed opcodes. docs/performance.md reads phase 1 this way.

usage: python3 bench/ncu_segments.py source.csv
"""
import collections
import csv
import sys


def segments(rows):
    seg = None
    for r in rows:
        if seg is None:
            seg = {"start": f"{r['Address']} {r['Source'].strip()[:40]}", "samples": 0.0, "n": 0,
                   "exec": 0.0, "stalls": collections.Counter(), "ops": collections.Counter()}
        src = r["Source"].strip()
        seg["samples"] += float(r["Warp Stall Sampling (All Samples)"] or 0)
        seg["n"] += 1
        executed = float(r["Instructions Executed"] or 0)
        seg["exec"] += executed
        words = src.split()
        op = (words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else ""))
        seg["ops"][op.split(".")[0]] += executed
        for name, value in r.items():
            if name.startswith("stall_") and "Not Issued" not in name:
                seg["stalls"][name[len("stall_"):]] += float(value or 0)
        if "BAR.SYNC" in src or src.startswith("EXIT"):
            yield seg
            seg = None
    if seg is not None:
        yield seg


def main(path):
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    header = lines[1] if lines and lines[0] and lines[0][0].startswith("Kernel") else lines[0]
    body = lines[lines.index(header) + 1:]
    rows = [dict(zip(header, line)) for line in body if len(line) == len(header)]
    total = sum(float(r["Warp Stall Sampling (All Samples)"] or 0) for r in rows)
    print(f"samples {total:.0f}, instructions {len(rows)}")
    for i, s in enumerate(segments(rows)):
        if s["samples"] < 0.01 * total:
            continue
        top = ", ".join(f"{k}={v / s['samples'] * 100:.0f}%" for k, v in s["stalls"].most_common(4))
        ops = ", ".join(f"{k}:{v / 1e3:.0f}k" for k, v in s["ops"].most_common(6))
        print(f"seg{i} {s['start']} n={s['n']} samples={s['samples'] / total * 100:.1f}% "
              f"exec={s['exec'] / 1e3:.0f}k | {top} | {ops}")


if __name__ == "__main__":
    main(sys.argv[1])
