"""The HBM bytes that the two-phase design must move, per benchmark row, against SPEC.md's floor.

Phase 1 reads q, k, b (bf16) and g (fp32) once per key head and writes one fp32 factor block per
(chunk, key head) (src/kernels/kernel_params.h, factor_block: 131,584 bytes). Phase 2 reads every
block at least once (the value heads of a GVA group and the value slices of a head can share it
through L2), reads v and w, writes the output and the final state. Both are lower bounds at the
copy bandwidth that the benchmark measured in the same run. No GPU and no torch needed: the row
shapes come from a bench.py results JSON (its `lengths`).

usage: python3 bench/two_phase_bytes.py bench/results/<run>/all-rows-no-fla.json
"""
import json
import math
import sys

K = V = 128
CHUNK = 64
FACTOR_BLOCK_BYTES = 4 * (2 * CHUNK * K + 2 * CHUNK * CHUNK + K * CHUNK + K)  # Kb, Qg, T, M, Kend^T, gamma


def two_phase_bytes(lengths, hq, hv, final_state):
    tokens, n = sum(lengths), len(lengths)
    chunks = sum(math.ceil(length / CHUNK) for length in lengths)
    factors = hq * chunks * FACTOR_BLOCK_BYTES
    phase1 = tokens * hq * K * (2 + 2 + 2 + 4) + factors
    phase2 = factors + tokens * hv * V * (2 + 2 + 2) + (n * hv * V * K * 4 if final_state else 0)
    return chunks, factors, phase1, phase2


def main(path):
    run = json.load(open(path, encoding="utf-8"))
    # A run cut off before its end (results.json with "complete": false) has no metadata yet.
    bandwidth = run.get("metadata", run)["copy_bandwidth_tb_s"] * 1e12
    print(f"copy bandwidth {bandwidth / 1e12:.2f} TB/s; factor block {FACTOR_BLOCK_BYTES} bytes")
    print("| row | chunks | factor blocks (MB) | phase 1 >= (us) | phase 2 >= (us) | both (us) "
          "| SPEC floor (us) | floor / both | measured, graph (us) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in run["rows"]:
        if not isinstance(row["lengths"], list):
            continue
        chunks, factors, p1, p2 = two_phase_bytes(row["lengths"], row["hq"], row["hv"], row["final_state"])
        us = lambda b: b / bandwidth * 1e6  # noqa: E731
        print(f"| {row['row']} | {chunks} | {factors / 1e6:.0f} | {us(p1):.0f} | {us(p2):.0f} | {us(p1 + p2):.0f} "
              f"| {us(row['floor_bytes']):.0f} | {row['floor_bytes'] / (p1 + p2):.0%} | {row['graph_us']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
