"""bench/two_phase_bytes.py (the HBM bytes of the two-phase design, docs/performance.md) on a
committed benchmark JSON. CPU only: runs in CI."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "two_phase_bytes.py"
RUN = ROOT / "bench" / "results" / "2026-12-03-nvidia-h200-9e70c8e" / "all-rows-no-fla.json"


def test_table_of_a_committed_run():
    result = subprocess.run([sys.executable, str(SCRIPT), str(RUN)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in result.stdout.splitlines() if line.startswith("| ") and not line.startswith("| row")}
    assert len(rows) == 11, result.stdout
    # 8 sequences of 2048 tokens: 256 chunks; 16 key heads x 256 blocks of 131,584 bytes = 539 MB
    assert rows["B8x2K-MHA"][:2] == ["256", "539"]
    # one sequence of 32768 tokens: 512 chunks, 1078 MB of factor blocks
    assert rows["L32K-MHA"][:2] == ["512", "1078"]
