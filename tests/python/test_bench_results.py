"""bench/bench.py's results.json (CPU only): rewritten whole after every row, so that a run stopped
by a time limit leaves the rows it measured, and marked complete only by the run's end."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))


def test_results_json_replaced_whole_after_each_row(tmp_path):
    import bench  # bench/bench.py: write_json needs no torch
    rows = []
    for name in ("S1-MHA-T64", "S2-MHA-T1024"):
        rows.append({"row": name, "graph_us": 1.0})
        bench.write_json(tmp_path, {"complete": False, "rows": rows})
        doc = json.loads((tmp_path / "results.json").read_text())
        assert doc["complete"] is False
        assert [r["row"] for r in doc["rows"]] == [r["row"] for r in rows]
    bench.write_json(tmp_path, {"complete": True, "rows": rows, "metadata": {"gpu": "x"}})
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["complete"] is True and len(doc["rows"]) == 2 and doc["metadata"] == {"gpu": "x"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]  # no temporary left
