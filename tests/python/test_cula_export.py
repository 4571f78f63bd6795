"""bench/cula_export.py's specialisation keys (CPU only): they must be cuLA's own, or bench.py would
call a kernel compiled for another route (cuLA's _compile in cula/ops/gdn2/sm90/prefill.py: the V64
route for one sequence of 16 value heads with both states and more than 64 tokens; the retained
final tail unless one sequence of at most 64 tokens)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import cula_export as ce  # noqa: E402


def test_the_canonical_rows_keys():
    # (tokens, sequences, Hv, initial state, final state) -> (Hv, h0, final, V64 route, tail)
    assert ce.compile_key(64, 1, 16, False, False) == (16, False, False, False, False)  # S1
    assert ce.compile_key(1024, 1, 16, True, True) == (16, True, True, True, True)  # S2
    assert ce.compile_key(4096, 20, 16, False, True) == (16, False, True, False, True)  # S3
    assert ce.compile_key(1024, 1, 64, True, True) == (64, True, True, False, True)  # S4
    assert ce.compile_key(1024, 1, 32, False, True) == (32, False, True, False, True)  # S5


def test_route_boundaries():
    assert ce.compile_key(64, 1, 16, True, True) == (16, True, True, False, False)
    assert ce.compile_key(65, 1, 16, True, True) == (16, True, True, True, True)
    assert ce.compile_key(65, 2, 16, True, True) == (16, True, True, False, True)
    assert ce.compile_key(65, 1, 32, True, True) == (32, True, True, False, True)
    assert ce.compile_key(65, 1, 16, False, True) == (16, False, True, False, True)
    assert ce.compile_key(65, 1, 16, True, False) == (16, True, False, False, False)


def test_every_key_is_cula_s_nineteen():
    keys = ce.every_key()
    assert len(keys) == 19 == len(set(keys))
    names = {ce.function_name(k) for k in keys}
    assert len(names) == 19
    assert all(n.isidentifier() for n in names)
    shapes = [(t, n, hv, h0, f) for t in (1, 64, 65, 4096) for n in (1, 2, 32)
              for hv in (16, 32, 64) for h0 in (False, True) for f in (False, True)]
    assert {ce.compile_key(*s) for s in shapes} == set(keys)


def test_contract():
    assert ce.in_contract(16, 16, 1) and ce.in_contract(16, 64, 32)
    assert not ce.in_contract(16, 16, 33)  # N64-MIXED
    assert not ce.in_contract(16, 48, 1) and not ce.in_contract(8, 16, 1)


def test_bench_table_with_cula_columns():
    import bench  # bench/bench.py: the table needs no torch

    base = {"row": "S2-MHA-T1024", "tokens": 1024, "sequences": 1, "hv": 16, "events_us": 60.0,
            "graph_us": 58.0, "first_call_ms": 1.0, "floor_us": 8.3, "floor_share_events": 0.14,
            "target_us": 15.0, "target_met": False, "err_output": 1.7e-3, "err_final_state": 3e-4}
    timed = dict(base, cula_events_us=90.0, cula_graph_us=87.0, speedup_vs_cula_graph=1.5,
                 cula_g_clamped=True)
    skipped = dict(base, row="N64-MIXED-MHA", cula_skipped="outside cuLA's contract")
    lines = bench.markdown_table([timed, skipped], with_cula=True).splitlines()
    width = len(bench.COLUMNS) + len(bench.CULA_COLUMNS)
    assert all(line.count("|") == width + 1 for line in lines)
    assert "| 90.0 (g clamped) | 87.0 | 1.5x | - |" in lines[2]
    assert "outside cuLA's contract" in lines[3]
    assert bench.markdown_table([base]).splitlines()[0].count("|") == len(bench.COLUMNS) + 1


def test_bench_table_when_cula_s_graph_failed():
    import bench

    r = {"row": "S1-MHA-T64", "tokens": 64, "sequences": 1, "hv": 16, "events_us": 20.0,
         "graph_us": 9.9, "first_call_ms": 1.0, "floor_us": 0.5, "floor_share_events": 0.02,
         "target_us": 6.0, "target_met": False, "cula_events_us": 30.0,
         "cula_error": "RuntimeError: capture | failed"}
    line = bench.markdown_table([r], with_cula=True).splitlines()[2]
    assert "| 30.0 | error: RuntimeError: capture / failed | - | - |" in line
