#!/usr/bin/env python3
"""Stress run of gdn2.chunk_gdn2 (issue 4, deliverable 1): determinism under load.

One process, fixed inputs per row (generated once, seeded). For every row the first call (with
validate=True) is the reference; then --launches calls go round-robin over the rows (weighted, so
that the 32K-token row does not dominate the run time), each result compared bitwise with the
row's reference ON THE DEVICE: mismatching and non-finite values accumulate into device counters,
outputs are poisoned with NaN before each call (a value left unwritten counts as a mismatch), and
nothing in the loop synchronises with the host (torch's sync debug mode is set to "error" around
it). Afterwards: every input bitwise unchanged (clones and checksums taken before), the redzones
around every output and final state intact (outputs are caller buffers in the middle of larger
sentinel-filled buffers), and the launch count exact (host count, per-row counts and a device-side
counter agree). Then the same rows, one call each, captured once in a CUDA graph together with the
comparisons, and replayed --graph-replays times: equal bitwise on every replay.

Writes a JSON receipt (--out, default bench/results/stress-<date>.json) and prints a summary table
last. Exit status 0 only when everything holds.

usage: PYTHONPATH=python python3 tests/stress/stress.py [--out FILE] [--launches 100000]
           [--graph-replays 10000] [--rows NAME,NAME] [--sync-debug error|warn|off]
"""

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

D = 128  # K = V
PAD = 1024  # redzone elements on each side of an output (keeps the view 16-byte aligned)
ISSUE_MIN_LAUNCHES = 100_000
ISSUE_MIN_REPLAYS = 10_000
ISSUE_MIN_ROWS = 8


@dataclass(frozen=True)
class Spec:
    name: str
    lengths: tuple
    hq: int
    hv: int
    initial_state: bool
    final_state: bool
    cu64: bool
    weight: int  # launches per round of the round-robin
    seed: int

    @property
    def tokens(self):
        return sum(self.lengths)


def row_specs():
    from gdn2.testing import CANONICAL_ROWS, random_lengths

    packed20 = CANONICAL_ROWS[2].lengths  # 20 sequences, 4096 tokens, tails of every kind
    assert len(packed20) == 20 and sum(packed20) == 4096
    # On 132 SMs (H200): state_pass v32 when N * Hv * 4 <= 132, else v64 when N * Hv * 2 <= 132, else
    # v128 (src/launch.cu): the column below.
    return [
        #    name               lengths                        hq  hv  h0     ht     cu64   w   seed
        Spec("T1-MHA", (1,), 16, 16, False, False, False, 20, 501),               # v32
        Spec("T65-GVA3", (65,), 4, 12, True, False, True, 20, 502),               # v32
        Spec("N32x1-GVA2", (1,) * 32, 2, 4, False, True, False, 20, 503),         # v128
        Spec("N100-rand-GVA4", random_lengths(100, 1, 128, seed=504), 1, 4, True, True, True, 5,
             504),                                                                 # v128
        Spec("65+63+1-GVA3", (65, 63, 1), 2, 6, True, True, False, 20, 505),     # v32
        Spec("T1024-MHA", (1024,), 16, 16, True, True, True, 10, 506),           # v32
        Spec("N3-T4096-GVA2", (1000, 2000, 1096), 8, 16, False, False, False, 5, 507),  # v64
        Spec("T32K-MHA", (32768,), 16, 16, False, True, True, 1, 508),           # v32, overlapped
        Spec("N20-packed-GVA4", packed20, 4, 16, True, False, False, 5, 509),    # v128
        Spec("N16-rand-GVA2", random_lengths(16, 1, 300, seed=510), 2, 4, True, True, True, 10,
             510),                                                                 # v64
        Spec("N40x1-MHA", (1,) * 40, 1, 1, False, True, False, 20, 511),          # v64
        Spec("N6-rand-GVA4", random_lengths(6, 1, 700, seed=512), 2, 8, True, False, True, 10,
             512),                                                                 # v64
        Spec("N3-T4096-GVA2-wide", (1000, 2000, 1096), 16, 32, False, False, False, 5, 513),  # v128
    ]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=None,
                   help="JSON receipt (default bench/results/stress-<date>.json)")
    p.add_argument("--launches", type=int, default=ISSUE_MIN_LAUNCHES,
                   help="eager launches, round-robin over the rows")
    p.add_argument("--graph-replays", type=int, default=ISSUE_MIN_REPLAYS,
                   help="replays of the graph holding one call of every row")
    p.add_argument("--rows", default="", help="comma-separated row names (default: all)")
    p.add_argument("--sync-debug", choices=("error", "warn", "off"), default="error",
                   help="torch.cuda.set_sync_debug_mode inside the loops (error: a sync fails the run)")
    return p.parse_args()


def git_commit():
    commit = os.environ.get("GDN2_COMMIT")
    if commit:
        return commit, None
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return (head or "unknown"), (bool(dirty) if head else None)
    except (OSError, subprocess.SubprocessError):
        return "unknown", None


def enqueue_without_sync(torch, count, label, step, sync_debug):
    """step(n) for n < count with host synchronisation forbidden (sync_debug), printing progress;
    returns the wall time until the device has finished."""
    if sync_debug != "off":
        torch.cuda.set_sync_debug_mode(sync_debug)
    t0 = time.perf_counter()
    try:
        for n in range(count):
            step(n)
            if (n + 1) % max(1, count // 10) == 0:
                print(f"  enqueued {n + 1} {label}, {time.perf_counter() - t0:.1f} s", flush=True)
    finally:
        torch.cuda.set_sync_debug_mode(0)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def main():
    args = parse_args()
    t_start = time.perf_counter()
    try:
        import torch
    except ImportError:
        print("stress: torch is not installed; the stress run needs torch and an sm_90 GPU")
        return 2
    if not torch.cuda.is_available():
        print("stress: no CUDA GPU; the stress run needs an NVIDIA Hopper (sm_90) GPU")
        return 2
    if torch.cuda.get_device_capability() != (9, 0):
        print(f"stress: gdn2 runs on sm_90 only; this GPU is sm_{''.join(map(str, torch.cuda.get_device_capability()))}")
        return 2
    import gdn2
    from gdn2.testing import make_inputs

    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    sms = props.multi_processor_count
    bf16, f32 = torch.bfloat16, torch.float32
    int_view = {bf16: torch.int16, f32: torch.int32, torch.int32: torch.int32, torch.int64: torch.int64}
    sentinel = {bf16: -1536.0, f32: -12345.5}
    nan = float("nan")
    failures = []

    def fail(msg):
        failures.append(msg)
        print(f"FAIL: {msg}", flush=True)

    specs = row_specs()
    if args.rows:
        wanted = set(args.rows.split(","))
        unknown = wanted - {s.name for s in specs}
        if unknown:
            print(f"stress: unknown rows {sorted(unknown)}; rows: {[s.name for s in specs]}")
            return 2
        specs = [s for s in specs if s.name in wanted]

    class Guarded:
        """A view in the middle of a larger buffer whose margins hold a sentinel."""

        def __init__(self, shape, dtype):
            self.numel = math.prod(shape)
            self.dtype = dtype
            self.buf = torch.full((PAD + self.numel + PAD,), sentinel[dtype], dtype=dtype, device=device)
            self.view = self.buf[PAD:PAD + self.numel].view(shape)
            self.view.fill_(nan)

        def redzones_intact(self):
            margin = torch.full((PAD,), sentinel[self.dtype], dtype=self.dtype, device=device)
            iv = int_view[self.dtype]
            return bool(torch.equal(self.buf[:PAD].view(iv), margin.view(iv))
                        and torch.equal(self.buf[PAD + self.numel:].view(iv), margin.view(iv)))

    def checksum(t):
        """Positional checksum of a tensor's bits (int64 arithmetic, wrapping): a hash on the device."""
        x = t.detach().reshape(-1).view(int_view[t.dtype])
        total = torch.zeros((), dtype=torch.int64, device=device)
        step = 1 << 24
        for start in range(0, x.numel(), step):
            part = x[start:start + step].to(torch.int64)
            pos = torch.arange(start, start + part.numel(), device=device, dtype=torch.int64)
            total += (part * (pos % 1_000_003 + 1)).sum() + part.sum()
        return int(total)

    class Row:
        def __init__(self, spec):
            self.spec = spec
            self.N, self.T = len(spec.lengths), spec.tokens
            self.variant = 32 if self.N * spec.hv * 4 <= sms else 64 if self.N * spec.hv * 2 <= sms else 128
            self.inp = make_inputs(spec.lengths, spec.hq, spec.hv, kind="model",
                                   initial_state=spec.initial_state, seed=spec.seed, device="cuda",
                                   cu_dtype=torch.int64 if spec.cu64 else torch.int32,
                                   gen_device="cuda")
            self.out = Guarded((self.T, spec.hv, D), bf16)
            self.ht = Guarded((self.N, spec.hv, D, D), f32) if spec.final_state else None
            self.g_out = Guarded((self.T, spec.hv, D), bf16)  # the graph's static outputs
            self.g_ht = Guarded((self.N, spec.hv, D, D), f32) if spec.final_state else None
            zero = lambda: torch.zeros((), dtype=torch.int64, device=device)  # noqa: E731
            self.mismatch, self.nonfinite = zero(), zero()
            self.g_mismatch, self.g_nonfinite = zero(), zero()
            self.launches = 0

        def call(self, out, ht, validate=False):
            i = self.inp
            gdn2.chunk_gdn2(i["q"], i["k"], i["v"], i["g"], i["b"], i["w"], cu_seqlens=i["cu_seqlens"],
                            initial_state=i["initial_state"], output=out.view,
                            final_state=None if ht is None else ht.view, validate=validate)

        def compare(self, out, ht, mismatch, nonfinite):
            """Device-side, no sync: bitwise mismatches and non-finite values into the counters."""
            mismatch.add_((out.view.view(torch.int16) != self.ref_o).sum())
            nonfinite.add_(torch.isfinite(out.view).logical_not_().sum())
            if ht is not None:
                mismatch.add_((ht.view.view(torch.int32) != self.ref_ht).sum())
                nonfinite.add_(torch.isfinite(ht.view).logical_not_().sum())

    # ---- setup: inputs, references (first call, validate=True), clones and checksums ----------
    print(f"stress: {torch.cuda.get_device_name()} ({sms} SMs), torch {torch.__version__}; "
          f"{len(specs)} rows, {args.launches} launches, {args.graph_replays} graph replays", flush=True)
    rows = []
    for spec in specs:
        r = Row(spec)
        r.call(r.out, r.ht, validate=True)  # the reference; validate_values runs here (it syncs)
        torch.cuda.synchronize()
        r.ref_o = r.out.view.view(torch.int16).clone()
        r.ref_ht = None if r.ht is None else r.ht.view.view(torch.int32).clone()
        ref_nonfinite = int(torch.isfinite(r.out.view).logical_not().sum())
        if r.ht is not None:
            ref_nonfinite += int(torch.isfinite(r.ht.view).logical_not().sum())
        if ref_nonfinite:
            fail(f"{spec.name}: the reference call has {ref_nonfinite} non-finite (or unwritten) values")
        r.clones = {k: v.clone() for k, v in r.inp.items() if v is not None}
        r.checksums_before = {k: checksum(v) for k, v in r.inp.items() if v is not None}
        rows.append(r)
        print(f"  row {spec.name:16s} T={r.T:<6d} N={r.N:<4d} Hq={spec.hq:<3d} Hv={spec.hv:<3d} "
              f"h0={int(spec.initial_state)} ht={int(spec.final_state)} "
              f"cu={'int64' if spec.cu64 else 'int32'} state_pass<{r.variant}> weight={spec.weight}",
              flush=True)

    # Coverage: the three state_pass variants with all four state modes, MHA and GVA 2/3/4, N 1/32/100.
    coverage = {
        "state_pass_modes": sorted({f"v{r.variant}:h0={int(r.spec.initial_state)},ht={int(r.spec.final_state)}"
                                    for r in rows}),
        "head_ratios": sorted({r.spec.hv // r.spec.hq for r in rows}),
        "sequence_counts": sorted({r.N for r in rows}),
        "cu_dtypes": sorted({"int64" if r.spec.cu64 else "int32" for r in rows}),
        "tokens_min_max": [min(r.T for r in rows), max(r.T for r in rows)],
    }
    if not args.rows:
        if len(coverage["state_pass_modes"]) != 12:
            fail(f"coverage: state_pass variants x state modes = {coverage['state_pass_modes']} (want 12)")
        if len(rows) < ISSUE_MIN_ROWS:
            fail(f"coverage: {len(rows)} rows < {ISSUE_MIN_ROWS}")
        if not {1, 2, 3, 4} <= set(coverage["head_ratios"]) or not {1, 32, 100} <= set(coverage["sequence_counts"]):
            fail(f"coverage: head ratios {coverage['head_ratios']}, sequence counts {coverage['sequence_counts']}")
    t_setup = time.perf_counter()

    # ---- eager: round-robin launches, device-side comparisons, no host sync --------------------
    schedule = []
    for k in range(max(r.spec.weight for r in rows)):
        schedule += [j for j, r in enumerate(rows) if r.spec.weight > k]
    device_launches = torch.zeros((), dtype=torch.int64, device=device)
    host_launches = 0

    def poison_call_compare(r, out, ht, mismatch, nonfinite):
        out.view.fill_(nan)
        if ht is not None:
            ht.view.fill_(nan)
        r.call(out, ht)
        r.compare(out, ht, mismatch, nonfinite)

    def launch(n):
        nonlocal host_launches
        r = rows[schedule[n % len(schedule)]]
        poison_call_compare(r, r.out, r.ht, r.mismatch, r.nonfinite)
        device_launches.add_(1)
        r.launches += 1
        host_launches += 1

    torch.cuda.synchronize()
    t_eager = enqueue_without_sync(torch, args.launches, "launches", launch, args.sync_debug)

    launches_exact = (host_launches == args.launches == sum(r.launches for r in rows)
                      == int(device_launches))
    if not launches_exact:
        fail(f"launch count: requested {args.launches}, host {host_launches}, per-row sum "
             f"{sum(r.launches for r in rows)}, device {int(device_launches)}")
    for r in rows:
        r.mismatch_count, r.nonfinite_count = int(r.mismatch), int(r.nonfinite)
        if r.mismatch_count or r.nonfinite_count:
            fail(f"{r.spec.name}: {r.mismatch_count} mismatching and {r.nonfinite_count} non-finite values "
                 f"over {r.launches} launches")

    # ---- graph: one call of every row plus its comparisons, captured once, replayed ------------
    replay_count = torch.zeros((), dtype=torch.int64, device=device)

    def graph_body():
        for r in rows:
            poison_call_compare(r, r.g_out, r.g_ht, r.g_mismatch, r.g_nonfinite)
        replay_count.add_(1)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        graph_body()  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        graph_body()
    torch.cuda.synchronize()
    warmup_mismatch = sum(int(r.g_mismatch) + int(r.g_nonfinite) for r in rows)
    if warmup_mismatch:
        fail(f"graph warm-up (eager, side stream): {warmup_mismatch} mismatching or non-finite values")
    for r in rows:
        r.g_mismatch.zero_()
        r.g_nonfinite.zero_()
    replay_count.zero_()
    torch.cuda.synchronize()
    replay = graph.replay
    t_graph = enqueue_without_sync(torch, args.graph_replays, "graph replays", lambda n: replay(), args.sync_debug)
    replays_exact = int(replay_count) == args.graph_replays
    if not replays_exact:
        fail(f"graph replays: requested {args.graph_replays}, device counted {int(replay_count)}")
    for r in rows:
        r.g_mismatch_count, r.g_nonfinite_count = int(r.g_mismatch), int(r.g_nonfinite)
        if r.g_mismatch_count or r.g_nonfinite_count:
            fail(f"{r.spec.name}: graph replays gave {r.g_mismatch_count} mismatching and "
                 f"{r.g_nonfinite_count} non-finite values")
    del graph

    # ---- afterwards: inputs unchanged, redzones intact ----------------------------------------
    inputs_unchanged, redzones_intact = True, True
    for r in rows:
        r.checksums_after = {k: checksum(v) for k, v in r.inp.items() if v is not None}
        for k, before in r.clones.items():
            iv = int_view[before.dtype]
            same = bool(torch.equal(r.inp[k].view(iv), before.view(iv)))
            if not same or r.checksums_after[k] != r.checksums_before[k]:
                inputs_unchanged = False
                fail(f"{r.spec.name}: input {k} changed (bitwise equal {same}, checksum "
                     f"{r.checksums_before[k]} -> {r.checksums_after[k]})")
        r.redzones_ok = all(g.redzones_intact() for g in (r.out, r.ht, r.g_out, r.g_ht) if g is not None)
        if not r.redzones_ok:
            redzones_intact = False
            fail(f"{r.spec.name}: a write outside output/final_state (redzone changed)")
    t_total = time.perf_counter() - t_start

    # ---- receipt ------------------------------------------------------------------------------
    commit, dirty = git_commit()
    now = datetime.datetime.now(datetime.timezone.utc)
    out_path = args.out or REPO / "bench" / "results" / f"stress-{now.strftime('%Y-%m-%d')}.json"
    total_mismatch = sum(r.mismatch_count for r in rows)
    total_nonfinite = sum(r.nonfinite_count for r in rows)
    g_mismatch = sum(r.g_mismatch_count for r in rows)
    g_nonfinite = sum(r.g_nonfinite_count for r in rows)
    receipt = {
        "what": "gdn2 stress run (issue 4, deliverable 1): tests/stress/stress.py",
        "date": now.isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(),
        "sm_count": sms,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "commit": commit,
        "worktree_dirty": dirty,
        "rows": [{
            "name": r.spec.name, "T": r.T, "N": r.N, "hq": r.spec.hq, "hv": r.spec.hv,
            "gva_ratio": r.spec.hv // r.spec.hq,
            "min_len": min(r.spec.lengths), "max_len": max(r.spec.lengths),
            "lengths": list(r.spec.lengths),
            "initial_state": r.spec.initial_state, "final_state": r.spec.final_state,
            "cu_seqlens_dtype": "int64" if r.spec.cu64 else "int32", "state_pass": f"v{r.variant}",
            "seed": r.spec.seed, "weight": r.spec.weight, "launches": r.launches,
            "mismatches": r.mismatch_count, "nonfinite": r.nonfinite_count,
            "graph_mismatches": r.g_mismatch_count, "graph_nonfinite": r.g_nonfinite_count,
            "redzones_intact": r.redzones_ok,
            "input_checksums": r.checksums_before,
        } for r in rows],
        "coverage": coverage,
        "launches": {"requested": args.launches, "host_counted": host_launches,
                     "device_counted": int(device_launches), "exact": launches_exact},
        "mismatches": total_mismatch,
        "nonfinite": total_nonfinite,
        "host_sync_in_loops": f"torch.cuda.set_sync_debug_mode('{args.sync_debug}')",
        "inputs_unchanged": inputs_unchanged,
        "input_check": "bitwise comparison with clones taken before the loops, and a positional "
                       "int64 checksum of each input's bits before and after",
        "redzones_intact": redzones_intact,
        "redzone_elements_each_side": PAD,
        "graph": {"replays": args.graph_replays, "device_counted": int(replay_count),
                  "exact": replays_exact, "calls_per_replay": len(rows), "mismatches": g_mismatch,
                  "nonfinite": g_nonfinite},
        "meets_issue_minimums": (args.launches >= ISSUE_MIN_LAUNCHES
                                 and args.graph_replays >= ISSUE_MIN_REPLAYS
                                 and len(rows) >= ISSUE_MIN_ROWS),
        "wall_s": {"setup": round(t_setup - t_start, 2), "eager": round(t_eager, 2),
                   "graph": round(t_graph, 2), "total": round(t_total, 2)},
        "failures": failures,
        "pass": not failures,
    }
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(receipt, indent=2) + "\n")

    # ---- summary table (last) -----------------------------------------------------------------
    print(f"\nreceipt: {out_path}")
    print("| row | T | N | Hq | Hv | h0 | ht | cu | state_pass | launches | mismatches | non-finite "
          "| graph mismatches | graph non-finite | redzones |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r.spec.name} | {r.T} | {r.N} | {r.spec.hq} | {r.spec.hv} | {int(r.spec.initial_state)} "
              f"| {int(r.spec.final_state)} | {'int64' if r.spec.cu64 else 'int32'} | v{r.variant} "
              f"| {r.launches} | {r.mismatch_count} | {r.nonfinite_count} | {r.g_mismatch_count} "
              f"| {r.g_nonfinite_count} | {'ok' if r.redzones_ok else 'CHANGED'} |")
    print(f"launches {host_launches} (device {int(device_launches)}, exact {launches_exact}); "
          f"mismatches {total_mismatch}; non-finite {total_nonfinite}; graph replays "
          f"{int(replay_count)} x {len(rows)} calls, mismatches {g_mismatch}, non-finite {g_nonfinite}; "
          f"inputs unchanged {inputs_unchanged}; redzones intact {redzones_intact}; "
          f"wall {t_total:.1f} s (eager {t_eager:.1f} s, graph {t_graph:.1f} s)")
    print("PASS" if not failures else f"FAIL ({len(failures)} failures)")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
