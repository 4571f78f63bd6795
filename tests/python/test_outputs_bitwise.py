"""bench/outputs_bitwise.py's compare on synthetic dumps: its exit statuses tell the A/B gate
(bench/ab_gate.py) equal outputs (0) from differing values (1) and from dumps it cannot compare (2).
Needs torch (for the dump format), not a GPU."""
import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")

_SPEC = importlib.util.spec_from_file_location(
    "outputs_bitwise", Path(__file__).resolve().parents[2] / "bench" / "outputs_bitwise.py")
outputs_bitwise = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(outputs_bitwise)


def save(path, o, ht):
    torch.save({"case": {"o": o, "final_state": ht}}, path)
    return str(path)


def test_compare_statuses(tmp_path):
    o = torch.randn(8, 2, 4).to(torch.bfloat16)
    ht = torch.randn(1, 2, 4, 4)
    a = save(tmp_path / "a.pt", o, ht)
    assert outputs_bitwise.compare(a, save(tmp_path / "same.pt", o.clone(), ht.clone())) == 0
    ht2 = ht.clone()
    ht2[0, 0, 0, 0] = torch.nextafter(ht2[0, 0, 0, 0], torch.tensor(float("inf")))  # one ulp
    assert outputs_bitwise.compare(a, save(tmp_path / "ulp.pt", o, ht2)) == 1
    assert outputs_bitwise.compare(a, save(tmp_path / "shape.pt", o[:4], ht)) == 2
    assert outputs_bitwise.compare(a, str(tmp_path / "missing.pt")) == 2
    torch.save({"other": {"o": o, "final_state": ht}}, tmp_path / "cases.pt")
    assert outputs_bitwise.compare(a, str(tmp_path / "cases.pt")) == 2
