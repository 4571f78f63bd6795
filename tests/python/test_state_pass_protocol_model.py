"""scripts/state_pass_protocol_model.py: the register-state pass's factor copies as a happens-before
model, one CTA (main) or a cluster whose CTAs multicast the factor groups. The kernel's buffers, and
others, check clean; faults put into the protocol are found. CPU only: runs in CI."""
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "state_pass_protocol_model.py"
_spec = importlib.util.spec_from_file_location("state_pass_protocol_model", SCRIPT)
model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(model)
Protocol = model.Protocol


@pytest.mark.parametrize("ctas", [1, 2])
@pytest.mark.parametrize("mk_stages", [1, 2, 3])
def test_buffers_check_clean(ctas, mk_stages):
    # state_pass_rs.cuh: one CTA, or the cluster of a head's two CTAs; M/Kend^T/gamma in one, two
    # (the kernel) or three buffers
    count, first = model.sweep(Protocol(ctas=ctas, mk_stages=mk_stages), max_chunks=7)
    assert count == 7
    assert first is None, first


@pytest.mark.parametrize("fault, ctas, expected", [
    # a non-issuing CTA expects the next fill's bytes before its previous fill has landed: its
    # arrival may count in the previous phase
    (dict(other_waits_full=False), 2, "an arrival for block 1 may land in block 0's phase of full_kq@1"),
    # the issuer copies without waiting for the buffer's release
    (dict(issuer_waits_empty=False), 2, "race on ('kq@0', 0, 'rows'): R of block 0 and the write of block 1"),
    (dict(issuer_waits_empty=False), 1, "race on ('kq@0', 0, 'rows'): R of block 0 and the write of block 1"),
    # the other CTA's consumers do not release on the issuer's `empty`: the copy overwrites what
    # they may still read
    (dict(remote_release=False), 2, "race on ('kq@1', 0, 'rows'): R of block 0 and the write of block 1"),
])
def test_faults_are_found(fault, ctas, expected):
    _, first = model.sweep(Protocol(ctas=ctas, **fault), max_chunks=4)
    assert first is not None
    faults = model.check(Protocol(ctas=ctas, **fault), first[0])
    assert any(f.startswith(expected) for f in faults), faults


def test_counts_follow_the_cluster():
    # The issuer's `empty` counts its own consumer threads and one arrival per warp of the other
    # CTA's consumers; a wrong count is reported.
    g, init, done = model.build(Protocol(ctas=2), 2)
    assert init["empty_kq@0"] == 128 + 4 and init["empty_t@1"] == 128 + 4 and init["empty_kq@1"] == 128
    init["empty_kq@0"] = 128
    assert any(f.startswith("arrivals on ('empty_kq@0'") for f in model.check_graph(g, init, done))


@pytest.mark.parametrize("ctas", [1, 2, 4])
def test_ss_clusters_check_clean(ctas):
    # state_pass_ss.cuh with mc.patch: the cluster of a head's four CTAs (also two, or one)
    count, first = model.sweep(model.SsProtocol(ctas=ctas), max_chunks=6)
    assert count == 6
    assert first is None, first


@pytest.mark.parametrize("fault, expected", [
    # the copying CTA multicasts without waiting until every CTA has freed its buffer
    (dict(copier_waits_freed=False), "race on ('kb@1', 0, 'rows'): R of block 0 and the write of block 1"),
    # M/Kend^T/gamma refilled before the CTA barrier after its readers of the previous chunk
    (dict(mk_after_first_barrier=False), "race on ('mk@0', 0, 'rows'): R of block 0 and the write of block 1"),
])
def test_ss_faults_are_found(fault, expected):
    faults = model.check(model.SsProtocol(**fault), 2)
    assert any(f.startswith(expected) for f in faults), faults
    assert model.check(model.SsProtocol(), 2) == []


def test_ss_freed_counts_one_arrival_per_cta():
    g, init, done = model.build_ss(model.SsProtocol(), 2)
    assert init["freed_kb@0"] == 4 and init["full_mk@3"] == 2
    init["freed_kb@0"] = 3
    assert any(f.startswith("arrivals on ('freed_kb@0'") for f in model.check_graph(g, init, done))
