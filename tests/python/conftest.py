"""pytest setup for the GPU tests of the gdn2 torch ops.

The package is imported from python/ of this checkout (ahead of any installed copy). Each GPU test
module skips itself, with the reason, when torch, a CUDA GPU, an sm_90 GPU or the built op
library (python/gdn2/libgdn2_torch.so) is missing: see `require_gpu_gdn2` below.
"""

import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_PYTHON_DIR = os.path.abspath(os.path.join(_HERE, "..", "..", "python"))
for _path in (_PYTHON_DIR, _HERE):  # the package, and this file for `from conftest import ...`
    if os.path.isdir(_path) and _path not in sys.path:
        sys.path.insert(0, _path)

# The contract's accuracy against the fp64 tokenwise reference (norm-relative; NaN/Inf never pass).
OUT_TOL = 4e-3    # ||o - ref|| / ||ref||
STATE_TOL = 3e-3  # same for the final state


def require_sm90_gpu():
    """Returns torch, or skips the calling test module when torch or an sm_90 GPU is missing."""
    torch = pytest.importorskip("torch", reason="torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU: the gdn2 GPU tests need an NVIDIA Hopper (sm_90) GPU",
                    allow_module_level=True)
    major, minor = torch.cuda.get_device_capability()
    if (major, minor) != (9, 0):
        pytest.skip(f"gdn2 runs on sm_90 (Hopper) only; this GPU is sm_{major}{minor}",
                    allow_module_level=True)
    return torch


def require_gpu_gdn2():
    """Returns (torch, gdn2) or skips the calling test module with the reason."""
    torch = require_sm90_gpu()
    try:
        import gdn2
    except ImportError as exc:  # the op library is not built
        pytest.skip(f"gdn2 is not importable: {exc}", allow_module_level=True)
    return torch, gdn2


def require_gdn2_op():
    """Returns (torch, gdn2) with the op library loaded, GPU or not (tracing tests on meta tensors),
    or skips the calling test module with the reason."""
    torch = pytest.importorskip("torch", reason="torch is not installed")
    try:
        import gdn2
    except (ImportError, OSError) as exc:  # the op library is not built, or not for this torch
        pytest.skip(f"gdn2 is not importable: {exc}", allow_module_level=True)
    return torch, gdn2


def run_built_program(name, *args, timeout=120):
    """Runs the GPU test program `name` of the CMake build (GDN2_BUILD_DIR, default build/; built by
    scripts/test.sh) with `args` and returns its CompletedProcess, or skips the calling test where it
    is not built, or where it exits 2 printing SKIP (the programs' code for a GPU or sizes it cannot
    test)."""
    import subprocess
    from pathlib import Path

    build = Path(_HERE).parents[1] / os.environ.get("GDN2_BUILD_DIR", "build")
    program = build / name
    if not program.exists():
        pytest.skip(f"{program} is not built (scripts/test.sh builds it)")
    result = subprocess.run([str(program), *map(str, args)], capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode == 2 and "SKIP" in result.stdout:
        pytest.skip(result.stdout.strip())
    return result


def pytest_configure(config):
    # pytest-timeout provides this mark where it is installed; declared here for where it is not.
    config.addinivalue_line("markers", "timeout(seconds, method): fail a test that runs too long")


def pytest_report_header(config):
    try:
        import torch
    except ImportError:
        return "gdn2: torch not installed"
    if not torch.cuda.is_available():
        return f"gdn2: torch {torch.__version__}, no CUDA GPU"
    return f"gdn2: torch {torch.__version__}, {torch.cuda.get_device_name()}"
