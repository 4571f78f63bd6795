"""A few calls of chosen benchmark rows (canonical or at scale, by name prefix as in bench.py's
--rows), as a target for Nsight Compute (no timing of its own).

usage: ncu --clock-control none -k regex:"chunk_factors|state_pass" --launch-skip 6 --launch-count 2 \\
           --set full --import-source no -o prof \\
           env PYTHONPATH=python python3 bench/ncu_rows.py S1,S2
  (three calls per row, two kernels per call: skipping 6 launches profiles S2's first call)
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402
import gdn2  # noqa: E402
from gdn2 import testing  # noqa: E402


def main(prefixes):
    rows = list(testing.CANONICAL_ROWS) + list(bench.scale_rows(testing.Row, testing.random_lengths))
    for row in rows:
        if any(row.name.startswith(prefix) for prefix in prefixes):
            call = bench.ours_fn(gdn2, testing.row_inputs(row), row)
            for _ in range(3):
                call()
            torch.cuda.synchronize()


if __name__ == "__main__":
    main(sys.argv[1].split(",") if len(sys.argv) > 1 else ["S2"])
