"""A caller's kernel that lets the call launch at its start and writes cu_seqlens later, then a call
without the max_seqlen hint whose choice of path is made on the device (tests/gpu/pdl_caller_order.cu):
the call's output and final state must be bit for bit those of the same call made after a
synchronisation, whichever way the written offsets change the choice. Needs an sm_90 GPU and the
built `gdn2_pdl_caller_order` (scripts/test.sh builds it; GDN2_BUILD_DIR, default build/)."""
import os
import subprocess
from pathlib import Path

import pytest

from conftest import require_gpu_gdn2

require_gpu_gdn2()

BUILD = Path(__file__).resolve().parents[2] / os.environ.get("GDN2_BUILD_DIR", "build")


def test_the_call_decides_on_the_offsets_its_caller_wrote():
    program = BUILD / "gdn2_pdl_caller_order"
    if not program.exists():
        pytest.skip(f"{program} is not built (scripts/test.sh builds it)")
    result = subprocess.run([str(program), "10"], capture_output=True, text=True, timeout=120)
    if result.returncode == 2 and "SKIP" in result.stdout:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr
