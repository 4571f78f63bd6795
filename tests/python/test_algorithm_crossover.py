"""bench/algorithm_crossover.py's output (CPU only): the JSON and the table are rewritten after
every shape, so a call that runs out of time keeps what it measured, marked incomplete."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import algorithm_crossover as ac  # noqa: E402


def row(name, fastest):
    times = {"chunked": 20.0, "recurrent": 30.0, "fused": 10.0}
    times[fastest] = 5.0
    return {"name": name, "T": 64, "N": 1, "Hq": 16, "Hv": 16, "max_seqlen": 64, "auto": "fused",
            "auto_hint": fastest, **{f"{a}_us": t for a, t in times.items()}, "best": fastest}


def test_partial_then_complete(tmp_path):
    meta = {"gpu": "test"}
    ac.save(str(tmp_path), meta, [row("a", "fused")], complete=False)
    first = json.loads((tmp_path / "crossover.json").read_text())
    assert first["meta"] == {"gpu": "test", "complete": False}
    assert [r["name"] for r in first["rows"]] == ["a"]
    ac.save(str(tmp_path), meta, [row("a", "fused"), row("b", "recurrent")], complete=True)
    done = json.loads((tmp_path / "crossover.json").read_text())
    assert done["meta"]["complete"] is True
    assert [r["best"] for r in done["rows"]] == ["fused", "recurrent"]
    table = (tmp_path / "crossover.md").read_text().splitlines()
    assert table[-1] == "| b | 64 | 1 | 16 | 16 | 20.0 | 5.0 | 10.0 | recurrent | fused | recurrent |"
    assert "complete': True" in (tmp_path / "crossover.md").read_text()
    assert meta == {"gpu": "test"}  # the caller's metadata is not changed


def test_many_shapes_are_batches_of_many_sequences():
    """--set many: 128 to 4,096 sequences each, names unique, the mixed ones from random_lengths."""
    calls = []

    def lengths(n, lo, hi, seed):
        calls.append((n, lo, hi, seed))
        return tuple(lo + i % (hi - lo + 1) for i in range(n))

    shapes = ac.many_shapes(lengths)
    names = [s[0] for s in shapes]
    assert len(set(names)) == len(names)
    for name, seqs, hq, hv in shapes:
        assert 128 <= len(seqs) <= 4096 and hq == 16 and hv % hq == 0, name
        assert name.split("-hv")[1] == str(hv)
    assert calls == [(128, 1, 256, 103), (128, 1, 256, 103)]
