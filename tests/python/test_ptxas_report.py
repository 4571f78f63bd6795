"""The CI check that every kernel is free of spills and stack frames (scripts/check_ptxas_report.py):
it must pass a clean report and fail on a spill, a stack frame, or a kernel missing from the log.
CPU only: runs in CI."""
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_ptxas_report.py"
KERNELS = ("chunk_factors_kernel", "state_pass_kernel", "validate_values_kernel")


def report(frames):
    lines = []
    for name, (stack, stores, loads) in frames.items():
        lines.append(f"ptxas info    : Function properties for _ZN4gdn27kernels{len(name)}{name}E")
        lines.append(f"    {stack} bytes stack frame, {stores} bytes spill stores, {loads} bytes spill loads")
    return "\n".join(lines) + "\n"


def check(tmp_path, frames):
    log = tmp_path / "build.log"
    log.write_text(report(frames))
    return subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True, text=True)


def test_clean_report_passes(tmp_path):
    result = check(tmp_path, {k: (0, 0, 0) for k in KERNELS})
    assert result.returncode == 0, result.stdout


def test_spill_fails(tmp_path):
    frames = {k: (0, 0, 0) for k in KERNELS}
    frames["state_pass_kernel"] = (32, 28, 28)
    result = check(tmp_path, frames)
    assert result.returncode == 1 and "state_pass_kernel" in result.stdout


def test_missing_kernel_fails(tmp_path):
    frames = {k: (0, 0, 0) for k in KERNELS[:2]}
    result = check(tmp_path, frames)
    assert result.returncode == 1 and "validate_values_kernel" in result.stdout
