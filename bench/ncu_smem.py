"""Shared-memory wavefronts and barrier-wait retries of one kernel, per unit of work, from the SASS
source page of an Nsight Compute report with source counters:

  ncu --clock-control none -k regex:fused_persistent_kernel --launch-skip 1 --launch-count 1 \\
      --section SourceCounters --import-source no -o prof env PYTHONPATH=python python3 bench/ncu_rows.py B8x2K-MHA
  ncu --import prof.ncu-rep --page source --csv --print-source sass > source.csv
  python3 bench/ncu_smem.py source.csv 16384      # 16,384 CTA-blocks: B8x2K-MHA's 128 CTAs x 128 blocks

It prints, divided by the unit count (the second argument, default 1):
  - the warp instructions executed, by opcode;
  - the shared-memory wavefronts (L1 Wavefronts Shared) by opcode, and those beyond the ideal
    (bank conflicts), with the instructions that have most of them;
  - each mbarrier try-wait (SYNCS.PHASECHK...TRYWAIT) executed more often than `--min` per unit:
    a wait that re-polls (the loop around a try_wait that returned before the phase completed).
docs/performance.md ("The pair form's wavefronts and waits") reads the fused kernels this way.
"""
import argparse
import collections
import csv


def rows_of(path):
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    header = lines[1] if lines and lines[0] and lines[0][0].startswith("Kernel") else lines[0]
    body = lines[lines.index(header) + 1:]
    return [dict(zip(header, line)) for line in body if len(line) == len(header)]


def number(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return 0.0


def opcode(source, full=False):
    words = source.strip().split()
    op = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "")
    return op if full else op.split(".")[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("source_csv")
    p.add_argument("units", nargs="?", type=float, default=1.0)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--min", type=float, default=1.0, help="try-waits executed more often than this per unit")
    a = p.parse_args()
    rows, u = rows_of(a.source_csv), a.units
    executed = collections.Counter()
    waves, excess = collections.Counter(), collections.Counter()
    for r in rows:
        executed[opcode(r["Source"])] += number(r["Instructions Executed"])
        waves[opcode(r["Source"], full=True)] += number(r["L1 Wavefronts Shared"])
        excess[opcode(r["Source"], full=True)] += number(r["L1 Wavefronts Shared Excessive"])
    total = sum(executed.values())
    print(f"warp instructions {total / u:.0f} per unit:",
          ", ".join(f"{k} {v / u:.0f}" for k, v in executed.most_common(16)))
    print(f"shared wavefronts {sum(waves.values()) / u:.0f} per unit:",
          ", ".join(f"{k} {v / u:.0f}" for k, v in waves.most_common(10) if v > 0))
    print(f"  beyond the ideal {sum(excess.values()) / u:.0f}:",
          ", ".join(f"{k} {v / u:.0f}" for k, v in excess.most_common(6) if v > 0))
    worst = sorted(range(len(rows)), key=lambda i: -number(rows[i]["L1 Wavefronts Shared Excessive"]))
    for i in worst[:a.top]:
        r = rows[i]
        if number(r["L1 Wavefronts Shared Excessive"]) == 0:
            break
        print(f"    #{i} {r['Source'].strip()[:56]:56s} executed {number(r['Instructions Executed']) / u:.1f}"
              f" wavefronts {number(r['L1 Wavefronts Shared']) / u:.0f}"
              f" (ideal {number(r['L1 Wavefronts Shared Ideal']) / u:.0f})")
    waits = [(number(r["Instructions Executed"]) / u, i, r["Source"].strip()) for i, r in enumerate(rows)
             if "TRYWAIT" in r["Source"]]
    print(f"try-waits {sum(w for w, _, _ in waits):.0f} per unit; executed more than {a.min:g} per unit:")
    for w, i, src in sorted(waits, reverse=True):
        if w <= a.min:
            break
        print(f"    #{i} {src[:72]} {w:.1f}")


if __name__ == "__main__":
    main()
