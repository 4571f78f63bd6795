#!/usr/bin/env python3
"""Benchmark of gdn2.chunk_gdn2 on an H200 (issue 3): SPEC.md's canonical rows and rows at scale.

For every row:
  * ours, events: CUDA events around the public Python call, median of --iters after --warmup
    calls (the existing kernel's protocol);
  * ours, graph: the GPU-only time, from CUDA-graph replay (several calls per graph for small
    rows, so that the replay's own launch cost is spread);
  * path: which algorithm algorithm="auto" ran (the forced one whose results are bitwise equal);
  * first call: wall time of the first call of the row's shape (setup cost, reported apart);
  * FLA's chunk_gdn2 (fla.ops.gdn2) when importable, with the same protocol; GVA rows expand
    q, k, g, b to Hv heads inside FLA's timed call, since FLA has no GVA;
  * with --cula DIR, cuLA's GDN2 kernel (PR #113, CuTe DSL; built ahead of time into DIR by
    bench/cula_export.py, loaded with tvm_ffi): events and graph, on the rows within its contract
    (Hq = 16, Hv in {16, 32, 64}, N <= 32), with g clamped to its range [-5, 0] where a row's
    decays go below (its accuracy is then not reported: the inputs differ from ours);
  * floor: the bytes of SPEC.md ("The physical floor") at the HBM copy bandwidth measured in this
    run; % of floor = floor / ours;
  * accuracy: norm-relative error of ours (and FLA) against the fp64 tokenwise reference.
Also the host overhead of the Python call on a tiny problem (event time minus graph time).
With --max-seqlen every call of ours passes max_seqlen = the row's longest sequence (the hint a
serving engine has in its batch metadata), which algorithm="auto" reads; without it, none.
With --algorithm NAME every call of ours forces that algorithm (e.g. "fused"); path is then
NAME.

Writes results.json, results.md and chart.png to --out (default bench/results/<date>-<gpu>/)
and prints the markdown table last. results.json is rewritten after every row ("complete": false
until the run ends), so a run stopped by a time limit keeps the rows it measured. Without a GPU it says so and exits 0.

usage: python3 bench/bench.py [--quick] [--out DIR] [--iters 100] [--warmup 20] [--no-fla]
                              [--rows S1,L32K] [--no-accuracy] [--max-seqlen] [--cula DIR]
                              [--algorithm auto|chunked|recurrent|fused] [--no-chart]
"""

import argparse
import datetime
import importlib.metadata
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

# Issue 3's targets: microseconds for the canonical rows, share of the floor for the rest.
TARGET_US = {"S1-MHA-T64": 6.0, "S2-MHA-T1024": 15.0, "S3-MHA-PACKED-T4096": 60.0,
             "S4-GVA4-T1024": 30.0, "S5-GVA2-T1024": 20.0}
TARGET_FLOOR_SHARE = 0.60
HOST_OVERHEAD_TARGET_US = 5.0
# FLA on an H200 as SPEC.md reports it (median ms), for a sanity look at this run's FLA numbers.
SPEC_FLA_MS = {"S1-MHA-T64": 0.974, "S2-MHA-T1024": 0.654, "S3-MHA-PACKED-T4096": 0.608,
               "S4-GVA4-T1024": 1.512, "S5-GVA2-T1024": 1.321}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="canonical rows only")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default bench/results/<date>-<gpu>/)")
    p.add_argument("--iters", type=int, default=100, help="timed calls per row (median)")
    p.add_argument("--warmup", type=int, default=20, help="untimed calls before timing")
    p.add_argument("--no-fla", action="store_true", help="skip FLA even when it is installed")
    p.add_argument("--cula", type=Path, default=None,
                   help="folder made by bench/cula_export.py: time cuLA's kernel in the same run")
    p.add_argument("--no-accuracy", action="store_true", help="skip the fp64 reference")
    p.add_argument("--no-chart", action="store_true",
                   help="write no chart.png (A/B rounds, whose results.json holds the same numbers)")
    p.add_argument("--rows", default="", help="comma-separated row-name prefixes to run")
    p.add_argument("--max-seqlen", action="store_true",
                   help="pass max_seqlen (the row's longest sequence) to every call of ours")
    p.add_argument("--algorithm", default="auto",
                   help="the algorithm of every call of ours (default auto; e.g. fused)")
    return p.parse_args()


# ---------------------------------------------------------------------------------------------
# timing


def event_times_ms(torch, fn, iters):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for start, end in zip(starts, ends):
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def first_call_ms(torch, fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    result = fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3, result


def graph_time_ms(torch, fn, calls_per_graph, replays):
    """GPU time of one call from CUDA-graph replay: graph of `calls_per_graph` calls, median."""
    from gdn2.testing import capture_graph
    graph, _ = capture_graph(fn, calls_per_graph)
    graph.replay()  # warm-up (uploads the graph)
    torch.cuda.synchronize()
    times = [t / calls_per_graph for t in event_times_ms(torch, graph.replay, replays)]
    del graph
    return times


def copy_bandwidth(torch, nbytes=4 << 30, iters=20):
    """HBM bandwidth of a device-to-device copy, bytes read + written per second."""
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    src.fill_(1)
    for _ in range(3):
        dst.copy_(src)
    times = event_times_ms(torch, lambda: dst.copy_(src), iters)
    return 2 * nbytes / (statistics.median(times) * 1e-3)


# ---------------------------------------------------------------------------------------------
# the calls


def timed_calls(torch, call, args):
    """The first call's wall time and result, then --warmup untimed calls and --iters timed ones."""
    first_ms, result = first_call_ms(torch, call)
    for _ in range(args.warmup):
        call()
    return first_ms, result, event_times_ms(torch, call, args.iters)


def ours_fn(gdn2, inp, row, hint=False, algorithm="auto"):
    q, k, v, g, b, w = (inp[n] for n in ("q", "k", "v", "g", "b", "w"))
    cu, h0, final = inp["cu_seqlens"], inp["initial_state"], row.final_state
    max_seqlen = max(row.lengths) if hint else None

    def call():
        return gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu, initial_state=h0,
                               output_final_state=final, max_seqlen=max_seqlen, algorithm=algorithm)
    return call


def bitwise_same(torch, x, y):
    return all(a is None or torch.equal(a.view(torch.uint8), b.view(torch.uint8))
               for a, b in zip(as_pair(x), as_pair(y)))


ALGORITHMS = ("chunked", "recurrent", "fused")


def auto_path(torch, gdn2, inp, row, result):
    """The algorithm whose forced call gives results bitwise equal to auto's `result` ("?" if none
    or several: the three round differently, docs/design.md)."""
    try:
        same = [a for a in ALGORITHMS if bitwise_same(torch, result, ours_fn(gdn2, inp, row, algorithm=a)())]
    except Exception as exc:  # a forced path failing (memory) must not cost the row its timings
        print(f"  path: {type(exc).__name__}: {exc}", flush=True)
        return "?"
    return same[0] if len(same) == 1 else "?"


def load_fla():
    try:
        from fla.ops.gdn2 import chunk_gdn2
        return chunk_gdn2, None
    except Exception as exc:  # not installed, or fails to import here
        return None, f"{type(exc).__name__}: {exc}"


def fla_fn(fla_chunk_gdn2, inp, row, scale):
    q, k, v, g, b, w = (inp[n] for n in ("q", "k", "v", "g", "b", "w"))
    cu, h0, final = inp["cu_seqlens"], inp["initial_state"], row.final_state
    group = row.hv // row.hq

    def call():
        qq, kk, gg, bb = q, k, g, b
        if group > 1:  # FLA has no GVA: value head h reads key head h // group
            qq, kk, gg, bb = (t.repeat_interleave(group, dim=1) for t in (q, k, g, b))
        o, ht = fla_chunk_gdn2(qq[None], kk[None], v[None], gg[None], bb[None], w[None],
                               scale=scale, initial_state=h0, output_final_state=final,
                               cu_seqlens=cu, state_v_first=True)
        return (o[0], ht) if final else o[0]
    return call


def load_cula(folder):
    """cuLA's exported kernels (bench/cula_export.py): (module, manifest), or (None, error)."""
    try:
        import tvm_ffi
        manifest = json.loads((folder / "cula_gdn2.json").read_text())
        module = tvm_ffi.load_module(str(folder / manifest["library"]))
        manifest["tvm_ffi"] = version("apache-tvm-ffi")
        return (tvm_ffi, module), manifest
    except Exception as exc:
        return None, {"error": f"{type(exc).__name__}: {exc}"}


def cula_fn(torch, cula, inp, row, scale):
    """A call of cuLA's kernel for the row, as cuLA's wrapper makes it (cula/gdn2/prefill.py and
    cula/ops/gdn2/sm90/prefill.py: outputs allocated per call, q standing in for an absent initial
    state, the output for an absent final state), on the caller's stream. None outside cuLA's
    contract. Returns (call, whether g had to be clamped to [-5, 0])."""
    import cula_export  # bench/, beside this script
    tvm_ffi, module = cula
    T, N = row.tokens, len(row.lengths)
    if not cula_export.in_contract(row.hq, row.hv, N):
        return None, False
    fn = getattr(module, cula_export.function_name(
        cula_export.compile_key(T, N, row.hv, row.initial_state, row.final_state)))
    q, k, v, b, w, cu, h0 = (inp[n] for n in ("q", "k", "v", "b", "w", "cu_seqlens", "initial_state"))
    g = inp["g"]
    clamped = bool((g < -5.0).any())
    if clamped:
        g = g.clamp(min=-5.0)
    cu = cu.to(torch.int64)
    final, hv, K = row.final_state, row.hv, q.shape[2]

    def call():
        out = torch.empty((T, hv, K), dtype=torch.bfloat16, device=q.device)
        ht = torch.empty((N, hv, K, K), dtype=torch.float32, device=q.device) if final else None
        with tvm_ffi.use_torch_stream():
            fn(q, k, v, b, w, cu, g, q, q, q if h0 is None else h0, out, out if ht is None else ht,
               N, row.hq, hv, T, scale)
        return (out, ht) if final else out
    return call, clamped


def as_pair(result):
    return result if isinstance(result, tuple) else (result, None)


# ---------------------------------------------------------------------------------------------
# rows


def scale_rows(Row, random_lengths):
    mixed = random_lengths(64, 1, 512, seed=103)
    return (
        Row("L32K-MHA", (32768,), 16, 16, False, True, "model", 101),
        Row("L32K-GVA2", (32768,), 16, 32, False, True, "model", 102),
        Row("N64-MIXED-MHA", mixed, 16, 16, False, True, "model", 103),
        Row("N64-MIXED-GVA2", mixed, 16, 32, False, True, "model", 104),
        Row("B8x2K-MHA", (2048,) * 8, 16, 16, False, True, "model", 105),
        Row("B4x4K-MHA", (4096,) * 4, 16, 16, False, True, "model", 106),
        Row("B8x2K-GVA2", (2048,) * 8, 16, 32, False, True, "model", 107),
        Row("B4x4K-GVA2", (4096,) * 4, 16, 32, False, True, "model", 108),
    )


def run_row(torch, gdn2, testing, row, args, bandwidth, fla, cula=None):
    canonical = row.name in TARGET_US
    # canonical rows: the existing benchmark's exact inputs (CPU generator); others: on device
    inp = testing.row_inputs(row, device="cuda", gen_device="cpu" if canonical else "cuda")
    tensors = {n: t for n, t in inp.items() if t is not None}
    check = {n: t.clone() for n, t in tensors.items()}
    T, N = row.tokens, len(row.lengths)
    scale = testing.HEAD_DIM ** -0.5
    floor_b = testing.floor_bytes(T, N, row.hq, row.hv, row.initial_state, row.final_state)
    rec = {"row": row.name, "lengths": list(row.lengths) if N <= 64 else f"{N} sequences",
           "tokens": T, "sequences": N, "hq": row.hq, "hv": row.hv,
           "initial_state": row.initial_state, "final_state": row.final_state,
           "inputs": row.kind, "seed": row.seed, "floor_bytes": floor_b,
           "floor_us": floor_b / bandwidth * 1e6}

    call = ours_fn(gdn2, inp, row, args.max_seqlen, args.algorithm)
    try:
        rec["first_call_ms"], result, ev = timed_calls(torch, call, args)
        rec["events_us"] = statistics.median(ev) * 1e3
        rec["events_samples_us"] = [round(t * 1e3, 3) for t in ev]
        per_graph = max(1, min(20, int(1000.0 / max(rec["events_us"], 1.0))))
        gr = graph_time_ms(torch, call, per_graph, max(10, args.iters // 5))
        rec["graph_us"] = statistics.median(gr) * 1e3
        rec["graph_calls_per_replay"] = per_graph
        rec["floor_share_events"] = rec["floor_us"] / rec["events_us"]
        rec["floor_share_graph"] = rec["floor_us"] / rec["graph_us"]
        rec["repeat_bitwise_equal"] = bitwise_same(torch, result, call())
        rec["path"] = auto_path(torch, gdn2, inp, row, result) if args.algorithm == "auto" else args.algorithm
        rec["inputs_unchanged"] = all(torch.equal(tensors[n], check[n]) for n in tensors)
    except Exception as exc:
        rec["error"] = f"{type(exc).__name__}: {exc}"
        print(f"  ours failed: {rec['error']}", flush=True)
        return rec
    if canonical:
        rec["target_us"] = TARGET_US[row.name]
        rec["target_met"] = rec["events_us"] <= TARGET_US[row.name]
    else:
        rec["target_floor_share"] = TARGET_FLOOR_SHARE
        rec["target_met"] = rec["floor_share_events"] >= TARGET_FLOOR_SHARE

    fla_result = None
    if fla is not None:
        fcall = fla_fn(fla, inp, row, scale)
        try:
            rec["fla_first_call_ms"], fla_result, fev = timed_calls(torch, fcall, args)
            rec["fla_events_us"] = statistics.median(fev) * 1e3
            rec["speedup_vs_fla"] = rec["fla_events_us"] / rec["events_us"]
            if row.name in SPEC_FLA_MS:
                rec["fla_spec_us"] = SPEC_FLA_MS[row.name] * 1e3
        except Exception as exc:
            rec["fla_error"] = f"{type(exc).__name__}: {exc}"
            print(f"  FLA failed: {rec['fla_error']}", flush=True)
            fla_result = None

    cula_result = run_cula(torch, cula, inp, row, args, scale, rec) if cula is not None else None

    if not args.no_accuracy:
        ref_o, ref_h = gdn2.reference_tokenwise(
            inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
            cu_seqlens=inp["cu_seqlens"], initial_state=inp["initial_state"], scale=scale)
        o, h = as_pair(result)
        rec["err_output"] = testing.norm_rel_error(o, ref_o)
        rec["err_final_state"] = None if h is None else testing.norm_rel_error(h, ref_h)
        rec["accuracy_ok"] = (rec["err_output"] <= 4e-3
                              and (h is None or rec["err_final_state"] <= 3e-3))
        if fla_result is not None:
            fo, fh = as_pair(fla_result)
            rec["fla_err_output"] = testing.norm_rel_error(fo, ref_o)
            rec["fla_err_final_state"] = None if fh is None else testing.norm_rel_error(fh, ref_h)
        if cula_result is not None:
            co, ch = as_pair(cula_result)
            rec["cula_err_output"] = testing.norm_rel_error(co, ref_o)
            rec["cula_err_final_state"] = None if ch is None else testing.norm_rel_error(ch, ref_h)
    del inp, tensors, check, result, fla_result, cula_result
    torch.cuda.empty_cache()
    return rec


def run_cula(torch, cula, inp, row, args, scale, rec):
    """cuLA's kernel on the row (events and graph) into rec; returns its result where its inputs
    are the row's own (for the accuracy check), else None."""
    try:
        ccall, clamped = cula_fn(torch, cula, inp, row, scale)
        if ccall is None:
            rec["cula_skipped"] = "outside cuLA's contract (Hq = 16, Hv in {16, 32, 64}, N <= 32)"
            return None
        rec["cula_g_clamped"] = clamped
        rec["cula_first_call_ms"], result, cev = timed_calls(torch, ccall, args)
        rec["cula_events_us"] = statistics.median(cev) * 1e3
        per_graph = max(1, min(20, int(1000.0 / max(rec["cula_events_us"], 1.0))))
        rec["cula_graph_us"] = statistics.median(
            graph_time_ms(torch, ccall, per_graph, max(10, args.iters // 5))) * 1e3
        rec["speedup_vs_cula_graph"] = rec["cula_graph_us"] / rec["graph_us"]
        rec["speedup_vs_cula_events"] = rec["cula_events_us"] / rec["events_us"]
        return None if clamped else result
    except Exception as exc:
        rec["cula_error"] = f"{type(exc).__name__}: {exc}"
        print(f"  cuLA failed: {rec['cula_error']}", flush=True)
        return None


def host_overhead(torch, gdn2, testing, args):
    """Event time minus GPU time of the Python call on a tiny problem (T = 16, one head), and the
    same for PyTorch's own one-launch op (`x.add_(1)` on 16 floats) in this process, for scale.

    The event protocol times back-to-back calls, so a call's event time includes host time only
    where the host is slower per call than the GPU (otherwise the calls queue up and the events
    see GPU time). The two calls take turns over three repetitions, so that a change of the host's
    speed during the run reaches both; each number is the median over the repetitions."""
    Row = testing.Row
    row = Row("TINY-T16-H1", (16,), 1, 1, False, False, "gentle", 7)
    inp = testing.row_inputs(row, device="cuda")
    x = torch.zeros(16, device="cuda")
    calls = {"ours": ours_fn(gdn2, inp, row, args.max_seqlen, args.algorithm), "torch_add": lambda: x.add_(1.0)}
    samples = {name: {"events_us": [], "graph_us": [], "host_wall_us_per_call": []} for name in calls}
    for call in calls.values():
        for _ in range(max(args.warmup, 10)):
            call()
    for _ in range(3):
        for name, call in calls.items():
            s = samples[name]
            s["events_us"].append(statistics.median(event_times_ms(torch, call, max(args.iters, 100))) * 1e3)
            s["graph_us"].append(statistics.median(graph_time_ms(torch, call, 20, 20)) * 1e3)
            n = 1000
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            s["host_wall_us_per_call"].append((time.perf_counter() - t0) / n * 1e6)
            torch.cuda.synchronize()
    med = {name: {k: statistics.median(v) for k, v in s.items()} for name, s in samples.items()}
    ours, ref = med["ours"], med["torch_add"]
    return {"problem": "T=16, N=1, Hq=Hv=1", "events_us": ours["events_us"], "graph_us": ours["graph_us"],
            "host_overhead_us": max(ours["events_us"] - ours["graph_us"], 0.0),
            "host_wall_us_per_call": ours["host_wall_us_per_call"],
            "reference_op": "torch x.add_(1) on 16 floats (one kernel launch)",
            "reference_events_us": ref["events_us"], "reference_graph_us": ref["graph_us"],
            "reference_overhead_us": max(ref["events_us"] - ref["graph_us"], 0.0),
            "reference_host_wall_us_per_call": ref["host_wall_us_per_call"],
            "samples": samples, "target_us": HOST_OVERHEAD_TARGET_US}


# ---------------------------------------------------------------------------------------------
# metadata and reports


def version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def git_commit():
    if os.environ.get("GDN2_COMMIT"):
        return os.environ["GDN2_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                             text=True, timeout=10)
        if out.returncode == 0:
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        if out.returncode == 0:
            return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    return None


def metadata(torch, gdn2, bandwidth, fla_error, cula_manifest=None):
    props = torch.cuda.get_device_properties(0)
    return {
        "gpu": props.name, "sm_count": props.multi_processor_count,
        "compute_capability": f"{props.major}.{props.minor}",
        "gpu_memory_gib": round(props.total_memory / 2**30, 1), "driver": driver_version(),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": git_commit(), "gdn2": gdn2.__version__, "torch": torch.__version__,
        "torch_cuda": torch.version.cuda, "triton": version("triton"),
        "fla": version("flash-linear-attention"), "fla_core": version("fla-core"),
        "fla_import_error": fla_error, "python": platform.python_version(),
        "copy_bandwidth_tb_s": bandwidth / 1e12,
        "cula": cula_manifest,
    }


def fmt(x, spec):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


COLUMNS = ("row", "T", "N", "Hv", "ours events (us)", "ours graph (us)", "path", "first call (ms)",
           "FLA (us)", "floor (us)", "% of floor", "speedup vs FLA", "target", "met", "err o",
           "err ht", "FLA err o")


CULA_COLUMNS = ("cuLA events (us)", "cuLA graph (us)", "speedup vs cuLA (graph)", "cuLA err o")


def cula_cells(r):
    if "cula_events_us" not in r:
        why = r.get("cula_error") or r.get("cula_skipped") or "-"
        return [why.replace("|", "/")[:60], "", "", ""]
    mark = " (g clamped)" if r.get("cula_g_clamped") else ""
    speedup = r.get("speedup_vs_cula_graph")
    graph = fmt(r.get("cula_graph_us"), ".1f") if "cula_error" not in r else "error: " + r["cula_error"][:40]
    return [fmt(r["cula_events_us"], ".1f") + mark, graph.replace("|", "/"),
            "-" if speedup is None else f"{speedup:.1f}x", fmt(r.get("cula_err_output"), ".2e")]


def table_cells(r, with_cula=False):
    columns = COLUMNS + (CULA_COLUMNS if with_cula else ())
    cells = [r["row"], str(r["tokens"]), str(r["sequences"]), str(r["hv"])]
    if "error" in r:
        cells.append("error: " + r["error"].replace("|", "/")[:100])
        return cells + [""] * (len(columns) - len(cells))
    speedup = r.get("speedup_vs_fla")
    target = (f"<= {r['target_us']:.0f} us" if "target_us" in r
              else f">= {100 * r['target_floor_share']:.0f}%")
    return cells + [
        fmt(r["events_us"], ".1f"), fmt(r["graph_us"], ".1f"), r.get("path", "-"), fmt(r["first_call_ms"], ".2f"),
        fmt(r.get("fla_events_us"), ".1f"), fmt(r["floor_us"], ".1f"),
        fmt(100 * r["floor_share_events"], ".0f") + "%",
        "-" if speedup is None else f"{speedup:.1f}x",
        target, "yes" if r["target_met"] else "no",
        fmt(r.get("err_output"), ".2e"), fmt(r.get("err_final_state"), ".2e"),
        fmt(r.get("fla_err_output"), ".2e"),
    ] + (cula_cells(r) if with_cula else [])


def markdown_table(rows, with_cula=False):
    columns = COLUMNS + (CULA_COLUMNS if with_cula else ())
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(table_cells(r, with_cula)) + " |" for r in rows]
    return "\n".join(lines)


def write_chart(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed"
    rows = [r for r in rows if "error" not in r]
    if not rows:
        return "no rows"
    series = [("ours (events)", "events_us"), ("ours (graph)", "graph_us"),
              ("FLA (events)", "fla_events_us"), ("HBM floor", "floor_us")]
    if any("cula_graph_us" in r for r in rows):
        series.insert(3, ("cuLA (graph)", "cula_graph_us"))
    height = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(rows) * len(series) / 2 + 2))
    for i, (label, key) in enumerate(series):
        ys = [j + i * height for j in range(len(rows))]
        xs = [r.get(key) or 0.0 for r in rows]
        ax.barh(ys, xs, height=height, label=label)
    ax.set_yticks([j + 0.4 - height / 2 for j in range(len(rows))])
    ax.set_yticklabels([r["row"] for r in rows])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("microseconds per call (log scale)")
    ax.set_title("gdn2.chunk_gdn2 vs FLA" + (" vs cuLA" if len(series) == 5 else "")
                 + " vs the HBM floor")
    ax.legend(loc="lower right")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def write_json(out, doc):
    """results.json in out, replaced whole (written aside, then renamed over the old one)."""
    tmp = out / "results.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(out / "results.json")


def default_out_dir(torch):
    gpu = re.sub(r"[^a-z0-9]+", "-", torch.cuda.get_device_name(0).lower()).strip("-")
    return REPO / "bench" / "results" / f"{datetime.date.today().isoformat()}-{gpu}"


# ---------------------------------------------------------------------------------------------


def main():
    args = parse_args()
    try:
        import torch
    except ImportError:
        print("torch is not installed: no GPU benchmark here (scripts/main.sh runs the CPU "
              "reference instead).")
        return 0
    if not torch.cuda.is_available():
        print("No CUDA GPU: nothing to benchmark here (scripts/main.sh runs the CPU reference "
              "instead).")
        return 0
    import gdn2
    from gdn2 import testing

    if torch.cuda.get_device_capability(0) != (9, 0):
        print(f"warning: {torch.cuda.get_device_name(0)} is not an sm_90 (Hopper) GPU: gdn2 "
              "will refuse to run; only FLA and the floor are measured.", flush=True)

    rows = list(testing.CANONICAL_ROWS)
    if not args.quick:
        rows += list(scale_rows(testing.Row, testing.random_lengths))
    if args.rows:
        wanted = [w.strip() for w in args.rows.split(",") if w.strip()]
        rows = [r for r in rows if any(r.name.startswith(w) for w in wanted)]

    fla, fla_error = (None, "skipped (--no-fla)") if args.no_fla else load_fla()
    cula, cula_manifest = load_cula(args.cula) if args.cula else (None, None)
    if args.cula and cula is None:
        print(f"cuLA: not loaded from {args.cula}: {cula_manifest['error']}", flush=True)
    print(f"GPU: {torch.cuda.get_device_name(0)}; FLA: "
          f"{'fla.ops.gdn2.chunk_gdn2' if fla else fla_error}", flush=True)
    bandwidth = copy_bandwidth(torch)
    torch.cuda.empty_cache()
    print(f"HBM copy bandwidth: {bandwidth / 1e12:.2f} TB/s (bytes read + written)", flush=True)

    out = args.out or default_out_dir(torch)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    with torch.inference_mode():
        for i, row in enumerate(rows, 1):
            print(f"[{i}/{len(rows)}] {row.name}: T={row.tokens} N={len(row.lengths)} "
                  f"Hq={row.hq} Hv={row.hv}", flush=True)
            rec = run_row(torch, gdn2, testing, row, args, bandwidth, fla, cula)
            if "error" not in rec:
                extra = (f", FLA {rec['fla_events_us']:.1f} us" if "fla_events_us" in rec else "")
                if "cula_graph_us" in rec:
                    extra += f", cuLA {rec['cula_events_us']:.1f} us (graph {rec['cula_graph_us']:.1f} us)"
                if rec.get("err_output") is not None:
                    ht = rec.get("err_final_state")
                    extra += f", error o {rec['err_output']:.2e}" + ("" if ht is None else f" ht {ht:.2e}")
                print(f"  ours {rec['events_us']:.1f} us (graph {rec['graph_us']:.1f} us), "
                      f"floor {rec['floor_us']:.1f} us{extra}", flush=True)
            results.append(rec)
            # The rows so far, so that a run stopped by a time limit keeps what it measured.
            write_json(out, {"complete": False, "copy_bandwidth_tb_s": bandwidth / 1e12, "rows": results})
        try:
            host = host_overhead(torch, gdn2, testing, args)
        except Exception as exc:
            host = {"error": f"{type(exc).__name__}: {exc}"}

    meta = metadata(torch, gdn2, bandwidth, fla_error, cula_manifest)
    protocol = {
        "events": f"CUDA events around the public Python call, median of {args.iters} after "
                  f"{args.warmup} warm-up calls",
        "max_seqlen": "passed to ours (the row's longest sequence)" if args.max_seqlen else "not passed",
        "algorithm": f"{args.algorithm!r} in every call of ours",
        "graph": "CUDA-graph replay, GPU time per call (median; several calls per graph for "
                 "small rows)",
        "path": "the algorithm auto ran: the forced call whose results are bitwise equal to its own",
        "first_call": "wall time of the row's first call, synchronised, setup excluded",
        "fla": "same protocol; GVA rows expand q, k, g, b to Hv heads inside the timed call",
        "floor": "SPEC.md bytes / copy bandwidth measured in this run",
        "accuracy": "||x - ref|| / ||ref|| against the fp64 tokenwise reference",
    }
    if cula is not None:
        protocol["cula"] = ("cuLA's GDN2 kernel (PR #113) exported ahead of time by "
                            "bench/cula_export.py, called as its wrapper calls it (outputs "
                            "allocated per call; its Python checks not timed); same protocol, "
                            "events and graph; rows outside its contract (N > 32) skipped; where "
                            "a row's g goes below -5 (its range), g is clamped to -5 for cuLA "
                            "and its accuracy is not reported")
    chart_error = "--no-chart" if args.no_chart else write_chart(results, out / "chart.png")
    table = markdown_table(results, with_cula=cula is not None)
    if "error" in host:
        host_line = f"Host overhead: not measured ({host['error']})"
    else:
        host_line = (f"Host overhead (tiny problem, {host['problem']}): "
                     f"{host['host_overhead_us']:.1f} us (events {host['events_us']:.1f} us - "
                     f"graph {host['graph_us']:.1f} us); host wall time per call "
                     f"{host['host_wall_us_per_call']:.1f} us; target <= "
                     f"{HOST_OVERHEAD_TARGET_US:.0f} us. For scale, {host['reference_op']} in this "
                     f"process: {host['reference_overhead_us']:.1f} us (events "
                     f"{host['reference_events_us']:.1f} us - graph {host['reference_graph_us']:.1f} us), "
                     f"host wall time per call {host['reference_host_wall_us_per_call']:.1f} us")
    header = (f"GPU {meta['gpu']} ({meta['sm_count']} SMs), {meta['date_utc']}, commit "
              f"{meta['commit']}; torch {meta['torch']}, triton {meta['triton']}, FLA "
              f"{meta['fla'] or 'not installed'}"
              + (f", cuLA PR #113 (CuTe DSL {cula_manifest['cutlass_dsl']}, exported ahead of time)"
                 if cula is not None else "")
              + f"; HBM copy bandwidth "
              f"{meta['copy_bandwidth_tb_s']:.2f} TB/s")
    write_json(out, {"complete": True, "metadata": meta, "protocol": protocol, "host_overhead": host,
                     "rows": results, "chart_error": chart_error})
    (out / "results.md").write_text(
        f"# gdn2 benchmark\n\n{header}\n\n{host_line}\n\n{table}\n\n"
        + "\n".join(f"- {k}: {v}" for k, v in protocol.items()) + "\n")
    print(f"\nResults in {out} (results.json, results.md, chart.png"
          f"{'' if chart_error is None else ': no chart, ' + chart_error})")
    print(f"\n{header}\n{host_line}\n")
    print(table)
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
