"""scripts/fused_protocol_model.py: the fused kernel's synchronisation as a happens-before model.
The kernel's rings, and deeper ones, check clean; faults put into the protocol are found. CPU
only: runs in CI."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fused_protocol_model.py"
_spec = importlib.util.spec_from_file_location("fused_protocol_model", SCRIPT)
model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(model)
Protocol = model.Protocol


@pytest.mark.parametrize("rings", [(2, 2, 2, 3, 4), (3, 2, 2, 4, 6), (2, 3, 2, 3, 4), (2, 2, 3, 3, 4)])
def test_rings_check_clean(rings):
    # src/kernels/fused.cuh (two of each, three kq buffers; the pair form four slots and four kq
    # buffers), and one ring deeper at a time (a third slot needs a fourth kq buffer: the producer's
    # wait for a slot then comes a block later; in the pair form six slots need six kq buffers)
    *depths, pair_kq = rings
    count, first = model.sweep(Protocol(*depths, pair_kq=pair_kq), max_blocks=7)
    assert count == 3 * (2 ** 8 - 2)  # the three forms (build)
    assert first is None, first


@pytest.mark.parametrize("fault, form, expected", [
    # the producer stores into a slot the consumers may still read
    (dict(producer_waits_slot=False), 2, "race on ('slot'"),
    # it forms a block into staging tiles a solver may still read
    (dict(producer_waits_stage=False), 2, "race on ('stage'"),
    # the raw inputs requested one block further ahead than there are raw stages: a block is
    # never requested, and the producer would wait for it forever
    (dict(raw_lookahead=3), 2, "a wait for a phase without arrivals: ('wait', 'raw_full'"),
    # the next raw inputs requested before the exact path has read this block's
    (dict(request_before_exact_read=True), 2, "race on ('raw'"),
    # two kq buffers: the producer writes block n + 2's [Kb; Qg] while the consumers may still
    # read block n's (its only wait is for the release of block n - 1)
    (dict(kq=2), 2, "race on ('kq'"),
    (dict(slots=3, kq=3), 2, "race on ('kq'"),
    # two consumers read T and P on the producer's arrival alone
    (dict(consumer_waits_solved=False), 2, "race on ('slot'"),
    # the pair form: kq stored before the slot's release (block n - 4's readers: both consumers
    # and the copy); three kq buffers; T and P sent before the other solver warps have stored P
    (dict(pair_producer_waits_before_kq=False), 1, "race on ('kq@"),
    (dict(pair_kq=3), 1, "race on ('kq@"),
    (dict(pair_solver_waits_full=False), 1, "race on ('slot@"),
    # the pair form's slot stores without the wait for their release: the next phase's arrivals
    # may land in this one's, on both CTAs' barriers
    (dict(producer_waits_slot=False, pair_producer_waits_before_kq=False), 1, "an arrival for block 4 may land"),
    # two consumers: a solver warp reads the other's partial sums of A and P without the barrier
    # between their writes and reads; both solvers' partials in one buffer (block n + 1's solver
    # overwrites block n's before the other warp has read them)
    (dict(partials_swap_waits=False), 2, "race on ('partials', 0, 'warp 0'): block 0 read before its write"),
    (dict(partials_per_solver=False), 2, "race on ('partials', 0, 'warp 0'): R of block 0 and the write of block 1"),
    (dict(partials_per_solver=False), 3, "race on ('partials@0', 0, 'warp 0'): R of block 0 and the write of block 2"),
    # the GVA pair (form 3): three kq buffers; the producer's stores before the slot's release;
    # its consumers read T and P (their own CTA's, or the copy from the other) on `full` alone
    (dict(pair_kq=3), 3, "race on ('kq@"),
    (dict(consumer_waits_solved=False), 3, "race on ('slot@"),
    (dict(producer_waits_slot=False, pair_producer_waits_before_kq=False), 3, "an arrival for block 4 may land"),
])
def test_faults_are_found(fault, form, expected):
    _, first = model.sweep(Protocol(**fault), max_blocks=5, forms=(form,))
    assert first is not None
    assert any(f.startswith(expected) for f in first[3]), first


def test_third_staging_tile_is_never_waited_for():
    # With two slots the producer's wait for staging tile n - 3 is already implied by its wait, one
    # block earlier, for the release of slot n - 3 (which needs every solver arrival of block
    # n - 3): dropped, the protocol stays clean with three tiles, and races with two.
    assert model.sweep(Protocol(stages=3, producer_waits_stage=False), max_blocks=6)[1] is None
    assert model.sweep(Protocol(stages=2, producer_waits_stage=False), max_blocks=6)[1] is not None
    assert model.sweep(Protocol(slots=3, stages=3, producer_waits_stage=False), max_blocks=6)[1] is not None


def test_command_line():
    result = subprocess.run([sys.executable, str(SCRIPT), "--blocks", "4"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "90 configurations, no fault" in result.stdout


def test_defaults_are_the_kernels_rings():
    # The model's default rings are fused.cuh's: a kernel with other ring depths needs the model
    # (and this test) brought along.
    src = (ROOT / "src" / "kernels" / "fused.cuh").read_text()
    depth = {name: re.search(pattern, src) for name, pattern in
             {"slots": r"kSlots = (\d+) \* kCtas;", "raw": r"RawStage<kConsumers, kCtas> raw\[(\d+)\];",
              "stages": r"StageTile stage\[(\d+)\];", "pair_kq": r"kKqRing = kCtas == 2 \? (\d+) : \d+;",
              "kq": r"kKqRing = kCtas == 2 \? \d+ : (\d+);"}.items()}
    assert all(depth.values()), "fused.cuh's Smem no longer declares its rings as the model expects"
    assert re.search(r"Slot<kConsumers, kCtas> slot\[R::kSlots\];", src) and re.search(r"float kq\[R::kKqRing\]", src)
    p = Protocol()
    keys = ("slots", "raw", "stages", "kq", "pair_kq")
    assert (p.slots, p.raw, p.stages, p.kq, p.pair_kq) == tuple(int(depth[k].group(1)) for k in keys)
