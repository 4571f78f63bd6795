"""A happens-before model of the state passes' factor copies: the register-state pass
(src/kernels/state_pass_rs.cuh) with one CTA per cluster as in main, or a cluster of a head's CTAs
that each copy some factor groups into all of them (multicast;
bench/results/2026-12-07-pass-profile/mc.patch); and the 32-channel pass with such clusters. CPU
only.

    python3 scripts/state_pass_protocol_model.py [--pass rs|ss] [--ctas 2] [--mk-stages 2] [--chunks 8]

The 32-channel pass's clusters (--pass ss): SsProtocol below.

Per chunk, three factor groups: Kb/Qg and T in one buffer each, M/Kend^T/gamma in --mk-stages.
Each group has an issuing CTA (one: CTA 0; two: Kb/Qg by CTA 0, T and M/Kend^T/gamma by CTA 1).
The producer thread of every CTA, for each fill of a group's buffer: the issuer waits on its
`empty` (every consumer thread of its own CTA and one arrival per consumer warp of the others'),
another CTA on its own `full`'s previous phase; each then expects the bytes on its own `full` (one
arrival); the issuer's copy writes the buffer of every CTA and completes on each one's `full` (its
second arrival, after the write). A consumer waits on `full`, reads the buffer and releases it on
the issuer's `empty`. The checks are scripts/fused_protocol_model.py's (check_graph): arrival
counts, deadlocks, parity waits that may pass early or alias, arrivals that may land in the previous
phase, and races on the buffers. v, w and the output tiles (one CTA's own, unchanged) are not
modelled.
"""

import argparse
import dataclasses
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("fused_protocol_model",
                                               Path(__file__).resolve().parent / "fused_protocol_model.py")
_fpm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fpm)
Graph, check_graph = _fpm.Graph, _fpm.check_graph

CONSUMER_THREADS, CONSUMER_WARPS = 128, 4
GROUPS = ("kq", "t", "mk")


@dataclasses.dataclass(frozen=True)
class Protocol:
    ctas: int = 2       # CTAs of a cluster (1: main's pass)
    mk_stages: int = 2  # buffers of M/Kend^T/gamma (state_pass_rs.cuh, kMkStages)
    # Deliberate faults, for the model's own tests:
    other_waits_full: bool = True     # a non-issuing CTA's producer waits for its previous fill to land
    issuer_waits_empty: bool = True   # the issuer waits for the buffer's release before its copy
    remote_release: bool = True       # the other CTAs' consumers release on the issuer's `empty`


def name(x, c):
    """Barrier or buffer x of CTA c."""
    return f"{x}@{c}"


def issuer_of(p, group):
    return 0 if p.ctas == 1 or group == "kq" else 1


def build(p, chunks):
    g = Graph()
    start = g.node(("init",))
    init = {}

    def buffers(group):
        return p.mk_stages if group == "mk" else 1

    for c in range(p.ctas):
        for group in GROUPS:
            init[name(f"full_{group}", c)] = 2  # the expectation and the copy's completion
            own = issuer_of(p, group) == c
            init[name(f"empty_{group}", c)] = CONSUMER_THREADS + (
                (p.ctas - 1) * CONSUMER_WARPS if own and p.remote_release else 0)
    for c in range(p.ctas):
        P = ("producer", c)
        for n in range(chunks):
            for group in GROUPS:
                nb = buffers(group)
                idx, prev = n % nb, n - nb
                full = name(f"full_{group}", c)
                issuer = issuer_of(p, group) == c
                if prev >= 0:
                    if issuer and p.issuer_waits_empty:
                        g.push(P, ("wait", name(f"empty_{group}", c), idx, prev))
                    elif not issuer and p.other_waits_full:
                        g.push(P, ("wait", full, idx, prev))
                g.push(P, ("arrive", full, idx, 1, n))  # the expected bytes
                if issuer:  # one copy into every CTA of the cluster
                    issued = g.push(P, ("copy", group, n))
                    for cc in range(p.ctas):
                        w = g.node(("W", name(group, cc), idx, n, "rows"))
                        done = g.node(("arrive", name(f"full_{group}", cc), idx, 1, n))
                        g.edge(issued, w)
                        g.edge(w, done)
    for c in range(p.ctas):
        C = ("consumer", c)
        for n in range(chunks):
            for group in GROUPS:
                idx = n % buffers(group)
                owner = issuer_of(p, group)
                g.push(C, ("wait", name(f"full_{group}", c), idx, n))
                g.push(C, ("R", name(group, c), idx, n, "rows"))
                if owner == c:
                    g.push(C, ("arrive", name(f"empty_{group}", c), idx, CONSUMER_THREADS, n))
                elif p.remote_release:
                    g.push(C, ("arrive", name(f"empty_{group}", owner), idx, CONSUMER_WARPS, n))
    for ops in g.threads.values():
        g.edge(start, ops[0])
    return g, init, {}


@dataclasses.dataclass(frozen=True)
class SsProtocol:
    """The 32-channel pass (src/kernels/state_pass_ss.cuh) with a head's four CTAs in a cluster:
    CTA rank g copies factor group g (Kb, T, Qg, M/Kend^T/gamma) into all of them (with fewer
    CTAs, rank g mod ctas). Each CTA has one buffer per group. In every CTA, per chunk c: a CTA
    barrier, then its issuer (a thread of a state warpgroup) expects M/Kend^T/gamma's fill c; RU
    reads Kb and T, Out reads Qg; a second CTA barrier, then the issuer expects Kb, T and Qg's
    fill c + 1; Out and both state warpgroups read M/Kend^T/gamma. For each group it expects, the issuer first tells the copying CTA that its
    buffer is free (a remote arrival on that CTA's `freed`, one per CTA and refill); the copying
    CTA's issuer then waits on `freed` and multicasts the group into every CTA."""
    ctas: int = 4
    # Deliberate faults, for the model's own tests:
    copier_waits_freed: bool = True    # the copying CTA waits until every CTA's buffer is free
    mk_after_first_barrier: bool = True  # M/Kend^T/gamma refilled after the barrier that frees it


SS_GROUPS = ("kb", "t", "qg", "mk")
SS_READERS = {"kb": ("ru",), "t": ("ru",), "qg": ("out",), "mk": ("out", "state0", "state1")}


def build_ss(p, chunks):
    g = Graph()
    start = g.node(("init",))
    init = {}

    for c in range(p.ctas):
        for group in SS_GROUPS:
            init[name(f"full_{group}", c)] = 2  # the expectation and the copy's completion
            init[name(f"freed_{group}", c)] = p.ctas
    threads = ("ru", "out", "state0", "state1")  # the issuer is a thread of state1

    def issue(c, groups, fill):
        th = (c, "state1")
        for grp in groups:
            owner = SS_GROUPS.index(grp) % p.ctas
            g.push(th, ("arrive", name(f"full_{grp}", c), 0, 1, fill))
            if fill > 0:
                g.push(th, ("arrive", name(f"freed_{grp}", owner), 0, 1, fill - 1))
        for grp in groups:
            if SS_GROUPS.index(grp) % p.ctas != c:
                continue
            if fill > 0 and p.copier_waits_freed:
                g.push(th, ("wait", name(f"freed_{grp}", c), 0, fill - 1))
            issued = g.push(th, ("copy", grp, fill))
            for cc in range(p.ctas):
                w = g.node(("W", name(grp, cc), 0, fill, "rows"))
                done = g.node(("arrive", name(f"full_{grp}", cc), 0, 1, fill))
                g.edge(issued, w)
                g.edge(w, done)

    def read(c, th, grp, n):
        g.push((c, th), ("wait", name(f"full_{grp}", c), 0, n))
        g.push((c, th), ("R", name(grp, c), 0, n, "rows"))

    for c in range(p.ctas):
        issue(c, ("kb", "t", "qg"), 0)
        for n in range(chunks):
            if not p.mk_after_first_barrier:
                issue(c, ("mk",), n)
            barrier = g.node(("join",))
            for th in threads:
                g.push((c, th), barrier)
            if p.mk_after_first_barrier:
                issue(c, ("mk",), n)
            read(c, "ru", "kb", n)
            read(c, "ru", "t", n)
            read(c, "out", "qg", n)
            barrier = g.node(("join",))
            for th in threads:
                g.push((c, th), barrier)
            if n + 1 < chunks:
                issue(c, ("kb", "t", "qg"), n + 1)
            for th in SS_READERS["mk"]:
                read(c, th, "mk", n)
    for ops in g.threads.values():
        g.edge(start, ops[0])
    return g, init, {}


def check(p, chunks):
    if isinstance(p, SsProtocol):
        return check_graph(*build_ss(p, chunks))
    return check_graph(*build(p, chunks))


def sweep(p, max_chunks=8):
    """(configurations, the first faulty one with its faults or None) over 1..max_chunks chunks."""
    first = None
    for chunks in range(1, max_chunks + 1):
        faults = check(p, chunks)
        if faults and first is None:
            first = (chunks, faults[:4])
    return max_chunks, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pass", dest="kind", choices=("rs", "ss"), default="rs",
                    help="rs: the 64-channel register-state pass; ss: the 32-channel pass")
    ap.add_argument("--ctas", type=int, default=None, help="CTAs of a cluster (rs: 2, ss: 4)")
    ap.add_argument("--mk-stages", type=int, default=2, help="rs: buffers of M/Kend^T/gamma")
    ap.add_argument("--chunks", type=int, default=8)
    a = ap.parse_args()
    if a.kind == "ss":
        p = SsProtocol(ctas=a.ctas or 4)
    else:
        p = Protocol(ctas=a.ctas or 2, mk_stages=a.mk_stages)
    count, first = sweep(p, a.chunks)
    print(f"{p}: {count} configurations, " + ("no fault" if first is None else f"fault: {first}"))
    return 0 if first is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
