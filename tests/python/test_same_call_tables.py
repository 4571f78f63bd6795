"""bench/same_call_tables.py (the same-call tables of a results directory) on committed device
calls: the best of the rounds per version, the change against the chosen base. CPU only: runs in CI."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "same_call_tables.py"
RUNS = ROOT / "bench" / "results" / "2026-12-04-nvidia-h200-b058c4e"
RUNS_THREE_ROUNDS = ROOT / "bench" / "results" / "2026-12-04-nvidia-h200-7894b95"


def table(n, base, runs=RUNS):
    result = subprocess.run([sys.executable, str(SCRIPT), str(runs), str(n), base], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in result.stdout.splitlines() if line.startswith("| ") and not line.startswith("| case")}


def test_rows_best_of_two_rounds_against_base():
    rows = table(1, "base")
    # call 1, S4: base 74.0 / 73.9, pst 68.7 / 68.6 (call1-rows-*.md)
    assert rows["S4-GVA4-T1024"][0] == "73.9"
    assert rows["S4-GVA4-T1024"][2] == "68.6 (-7.2%)"


def test_lengths_and_another_base():
    rows = table(4, "a8")
    assert len(rows) == 12 + 11  # 12 sequence lengths, 11 rows
    assert rows["S1-MHA-T64"] == ["18.3", "17.4 (-4.9%)"]


def test_three_rounds_and_versions_ending_in_digits():
    # call 5: h, c4, c8, three rounds each (call5-rows-*.md); L32K-MHA, graph: h 1309.6 / 1308.3 /
    # 1310.6, so the best is round 2's; c4 and c8 best 1366.6 and 1409.4
    rows = table(5, "h", RUNS_THREE_ROUNDS)
    assert rows["L32K-MHA"] == ["1308.3", "1366.6 (+4.5%)", "1409.4 (+7.7%)"]
    rows = table(3, "base", RUNS_THREE_ROUNDS)
    assert rows["S1-MHA-T64"] == ["17.1", "16.7 (-2.3%)", "16.7 (-2.3%)"]


def test_usage_without_arguments():
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode != 0 and "usage" in result.stderr
