"""The pip package (pyproject.toml): build the wheel from this checkout, install it apart, use it.

`pip wheel --no-build-isolation` builds the ops against the torch of this Python, as README.md
tells users to. The wheel is unpacked into a folder of its own and used from a fresh Python
process whose path holds that folder and not python/ of this checkout: the import, the ops on
the GPU against the fp64 reference, gdn2._eager, and torch.compile. Needs no build in the
checkout. Skips where there is no sm_90 GPU (as every GPU test) or no scikit-build-core (the
build backend).
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import OUT_TOL, STATE_TOL, require_sm90_gpu

require_sm90_gpu()  # the checkout's own build is not needed: the test builds the wheel
pytest.importorskip("scikit_build_core", reason="scikit-build-core (the wheel's build backend) is not installed")

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Run by the installed package's Python: prints one JSON line.
USE_THE_WHEEL = r"""
import json, os, sys
import torch
import gdn2
from gdn2.testing import make_inputs, norm_rel_error

site = sys.argv[1]
inp = make_inputs((100, 37, 1), 2, 4, kind="model", initial_state=True, device="cuda", seed=3)
args = (inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"])
o, ht = gdn2.chunk_gdn2(*args, cu_seqlens=inp["cu_seqlens"], initial_state=inp["initial_state"],
                        output_final_state=True)
ref_o, ref_ht = gdn2.reference_tokenwise(*args, cu_seqlens=inp["cu_seqlens"],
                                         initial_state=inp["initial_state"])
compiled = torch.compile(lambda *a: gdn2.chunk_gdn2(*a, cu_seqlens=inp["cu_seqlens"]), fullgraph=True)
o_compiled = compiled(*args)
torch.cuda.synchronize()
print(json.dumps({
    "file": os.path.realpath(gdn2.__file__),
    "site": os.path.realpath(site),
    "eager": gdn2.ops._eager is not None,
    "err_o": norm_rel_error(o, ref_o),
    "err_state": norm_rel_error(ht, ref_ht),
    "compiled_equal": bool(torch.equal(o_compiled, gdn2.chunk_gdn2(*args, cu_seqlens=inp["cu_seqlens"]))),
}))
"""


@pytest.mark.timeout(900)
def test_wheel_builds_installs_and_runs(tmp_path):
    env = dict(os.environ)
    if shutil.which("nvcc") is None and os.path.exists("/usr/local/cuda/bin/nvcc"):
        env["PATH"] = "/usr/local/cuda/bin:" + env.get("PATH", "")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", REPO,
         "-w", str(tmp_path / "dist"), "-C", f"build-dir={tmp_path / 'build'}"],
        env=env, capture_output=True, text=True, timeout=850)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    wheels = list((tmp_path / "dist").glob("gdn2-*.whl"))
    assert len(wheels) == 1, wheels

    site = tmp_path / "site"
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        wheel.extractall(site)
    assert "gdn2/libgdn2_torch.so" in names, names
    assert not any(n.startswith(("include/", "lib/")) for n in names), names  # package only

    env_use = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env_use["PYTHONPATH"] = str(site)
    use = subprocess.run([sys.executable, "-c", USE_THE_WHEEL, str(site)], env=env_use,
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert use.returncode == 0, use.stdout[-3000:] + use.stderr[-3000:]
    result = json.loads(use.stdout.strip().splitlines()[-1])
    assert result["file"].startswith(result["site"] + os.sep), result  # the wheel's copy, not python/
    assert result["eager"], "gdn2._eager is missing from the wheel (or does not import)"
    assert result["err_o"] <= OUT_TOL, result
    assert result["err_state"] <= STATE_TOL, result
    assert result["compiled_equal"], result
