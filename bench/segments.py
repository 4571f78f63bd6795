#!/usr/bin/env python3
"""Long sequences cut into segments that run side by side on the fused path: a probe of
docs/performance.md, "Where the remaining gap lies", item 8, built from the public calls.

The state is affine in its start (docs/algorithm.md has the recurrence): over a segment s,
    S_end = Phi_s S_start + S0_s,     o_t = o0_t + S_start^T oI_t,
where S0_s and o0_t come from a run of the segment from a zero state, and Phi_s and
oI_t = scale Phi_t^T q_t from a run of its key side from the state I with v = 0 (an "identity
head": K = V, one per key head, shared by the value heads of its GVA group). So:
  * call A runs every sequence's first segment from the caller's initial state (the Hv heads);
  * call B runs every later segment with Hv + Hq heads: each key head's value heads from a zero
    state, then its identity head (value heads of key head j are j (G + 1) + r, r < G, and the
    identity head is j (G + 1) + G, so that GVA's head mapping pairs them with key head j);
  * a scan over each sequence's segments, X(r + 1) = X(r) Phi_r^T + S0_r^T in the V-first layout
    of the states (X = S^T), gives the state at each segment's start and the final state;
  * a correction adds X(r) oI_t to o0_t for the tokens of the later segments.
A and B are independent (two streams). Here A and B are gdn2.chunk_gdn2 calls on gathered
inputs; the gathers stand for what a kernel would read in place, and are timed apart.

The decomposition below works on numpy or torch arrays (an ArrayOps adapter); the CPU tests
(tests/python/test_segments.py) check it against the fp64 recurrence in numpy with strong decays.
On a GPU, `python3 bench/segments.py [--out DIR]` times it against the direct call (CUDA-graph
replay) and reports the errors against the fp64 reference; outputs segments.json and segments.md.
`python3 bench/segments.py --cpu-accuracy` (numpy only) prints what the decomposition costs in
accuracy when the runs are fp32 and their outputs are kept in bf16 or in fp32; `--model` prints
the predicted kernel times.
"""

import argparse
import heapq
import json
import os
import statistics
import sys
from dataclasses import dataclass

import numpy as np


@dataclass
class Plan:
    """Where the segments of `lengths` (cut every `seg_len` tokens) lie in the packed token axis."""
    tokens_a: np.ndarray   # [TA] token of each position of call A (every sequence's first segment)
    cu_a: np.ndarray       # [N + 1] offsets of call A's sequences
    tokens_b: np.ndarray   # [TB] token of each position of call B (the later segments)
    cu_b: np.ndarray       # [NB + 1] offsets of call B's sequences (the later segments)
    seq_b: np.ndarray      # [NB] sequence of each later segment
    prev_b: np.ndarray     # [NB] later segment before it in its sequence, -1 for the second one
    last_b: np.ndarray     # [N] each sequence's last later segment, -1 if it has one segment
    rank_b: np.ndarray     # [NB] 1 for a sequence's second segment, 2 for its third, ...
    pad_b: np.ndarray      # [NB, Lmax] positions in call B of each segment's tokens, -1 past its end


def plan(lengths, seg_len):
    if seg_len < 1:
        raise ValueError(f"seg_len: expected >= 1, got {seg_len}")
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tokens_a, cu_a, tokens_b, cu_b = [], [0], [], [0]
    seq_b, prev_b, rank_b = [], [], []
    last_b = np.full(len(lengths), -1, dtype=np.int64)
    for n, length in enumerate(lengths):
        first = min(length, seg_len)
        tokens_a.append(np.arange(starts[n], starts[n] + first))
        cu_a.append(cu_a[-1] + first)
        for rank, lo in enumerate(range(seg_len, length, seg_len), start=1):
            hi = min(lo + seg_len, length)
            tokens_b.append(np.arange(starts[n] + lo, starts[n] + hi))
            cu_b.append(cu_b[-1] + hi - lo)
            prev_b.append(last_b[n])
            last_b[n] = len(seq_b)
            seq_b.append(n)
            rank_b.append(rank)
    nb = len(seq_b)
    lmax = max([cu_b[i + 1] - cu_b[i] for i in range(nb)], default=0)
    pad_b = np.full((nb, lmax), -1, dtype=np.int64)
    for i in range(nb):
        pad_b[i, :cu_b[i + 1] - cu_b[i]] = np.arange(cu_b[i], cu_b[i + 1])

    def ints(parts):
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
    return Plan(ints(tokens_a), np.array(cu_a, dtype=np.int64), ints(tokens_b),
                np.array(cu_b, dtype=np.int64), np.array(seq_b, dtype=np.int64),
                np.array(prev_b, dtype=np.int64), last_b, np.array(rank_b, dtype=np.int64), pad_b)


class ArrayOps:
    """The few operations where numpy and torch spell things differently."""

    def __init__(self, torch=None):
        self.torch = torch

    def zeros(self, shape, like):
        if self.torch is not None:
            return like.new_zeros(shape)
        return np.zeros(shape, dtype=like.dtype)

    def eye(self, n, like):
        if self.torch is not None:
            return self.torch.eye(n, dtype=like.dtype, device=like.device)
        return np.eye(n, dtype=like.dtype)

    def index(self, idx, device):
        """A numpy index array on this backend (done before a graph capture, never inside)."""
        if self.torch is not None:
            return self.torch.as_tensor(idx, dtype=self.torch.int64, device=device)
        return idx

    def permute(self, x, axes):
        return x.permute(*axes) if self.torch is not None else x.transpose(axes)

    def cat(self, parts):
        return self.torch.cat(parts) if self.torch is not None else np.concatenate(parts)

    def copy(self, x):
        return x.clone() if self.torch is not None else x.copy()

    def cast(self, x, like):
        return x.to(like.dtype) if self.torch is not None else x.astype(like.dtype)


class SegmentIndex:
    """A plan's index arrays on the backend, with those that the scan and the correction derive."""

    def __init__(self, ops, p, device=None):
        self.ops, self.plan = ops, p
        self.nb, self.tb = len(p.seq_b), len(p.tokens_b)
        self.tokens_a = ops.index(p.tokens_a, device)
        self.tokens_b = ops.index(p.tokens_b, device)
        self.ranks = []   # per rank: (later segments of that rank, where their start comes from)
        for rank in range(1, int(p.rank_b.max(initial=0)) + 1):
            segs = np.nonzero(p.rank_b == rank)[0]
            source = p.seq_b[segs] if rank == 1 else p.prev_b[segs]
            self.ranks.append((ops.index(segs, device), ops.index(source, device)))
        split = np.nonzero(p.last_b >= 0)[0]
        self.split = ops.index(split, device)
        self.last = ops.index(p.last_b[split], device)
        self.lmax = p.pad_b.shape[1]
        self.pad = ops.index(np.where(p.pad_b >= 0, p.pad_b, self.tb).reshape(-1), device)
        self.valid = ops.index(np.nonzero(p.pad_b.reshape(-1) >= 0)[0], device)  # call B's order


def split_inputs(ix, inp, hq, hv):
    """Call A's and call B's inputs (dicts of q, k, v, g, b, w, initial_state) from the caller's."""
    ops, group = ix.ops, hv // hq
    a = {n: inp[n][ix.tokens_a] for n in ("q", "k", "v", "g", "b", "w")}
    a["initial_state"] = inp.get("initial_state")
    b = {n: inp[n][ix.tokens_b] for n in ("q", "k", "g", "b")}
    vdim, kdim = inp["v"].shape[-1], inp["k"].shape[-1]
    if vdim != kdim:
        raise ValueError(f"v: identity heads need V == K, got V = {vdim}, K = {kdim}")
    for n in ("v", "w"):
        x = ops.zeros((ix.tb, hq, group + 1, vdim), inp[n])
        x[:, :, :group] = inp[n][ix.tokens_b].reshape(ix.tb, hq, group, vdim)
        b[n] = x.reshape(ix.tb, hq * (group + 1), vdim)
    like = inp["g"]
    h0 = ops.zeros((ix.nb, hq, group + 1, vdim, kdim), like)
    h0[:, :, group] = ops.eye(kdim, like)
    b["initial_state"] = h0.reshape(ix.nb, hq * (group + 1), vdim, kdim)
    return a, b


def segment_states(ix, fs_a, fs_b, hq, hv):
    """The state at each later segment's start, X [NB, Hv, V, K], and every sequence's final state
    [N, Hv, V, K], from the final states of call A (fs_a) and call B (fs_b), by the scan."""
    ops, group = ix.ops, hv // hq
    vdim, kdim = fs_a.shape[-2], fs_a.shape[-1]
    fb = fs_b.reshape(ix.nb, hq, group + 1, vdim, kdim)
    s0, phi_t = fb[:, :, :group], fb[:, :, group:]   # S0^T [NB,Hq,G,V,K]; Phi^T [NB,Hq,1,K,K]
    first = fs_a.reshape(-1, hq, group, vdim, kdim)
    start = ops.zeros((ix.nb, hq, group, vdim, kdim), fs_a)
    for rank, (segs, source) in enumerate(ix.ranks, start=1):
        if rank == 1:
            start[segs] = first[source]
        else:
            start[segs] = start[source] @ phi_t[source] + s0[source]
    final = ops.copy(first)
    if ix.nb:
        final[ix.split] = start[ix.last] @ phi_t[ix.last] + s0[ix.last]
    return start.reshape(ix.nb, hv, vdim, kdim), final.reshape(-1, hv, vdim, kdim)


def combine(ix, o_a, o_b, start, hq, hv, out):
    """Writes every token's output into `out` [T, Hv, V]: call A's as they are, call B's corrected
    by the state at their segment's start (o = o0 + X oI). o_a and o_b in the working precision."""
    ops, group, nb, tb = ix.ops, hv // hq, ix.nb, ix.tb
    vdim = o_a.shape[-1]
    out[ix.tokens_a] = ops.cast(o_a, out)
    if nb == 0:
        return out
    ob = o_b.reshape(tb, hq, group + 1, vdim)
    o0, oi = ob[:, :, :group], ob[:, :, group]                       # [TB,Hq,G,V], [TB,Hq,K]
    oi_pad = ops.cat([oi, ops.zeros((1, hq, vdim), oi)])             # row TB: zeros, for pads
    oi_seg = ops.permute(oi_pad[ix.pad].reshape(nb, ix.lmax, hq, vdim), (0, 2, 1, 3))  # [NB,Hq,L,K]
    x = start.reshape(nb, hq, group, vdim, vdim)                    # X [NB,Hq,G,V,K]
    corr = oi_seg[:, :, None] @ x.swapaxes(-1, -2)                  # [NB,Hq,G,L,V]
    corr = ops.permute(corr, (0, 3, 1, 2, 4)).reshape(nb * ix.lmax, hq, group, vdim)
    fixed = (o0 + corr[ix.valid]).reshape(tb, hv, vdim)
    out[ix.tokens_b] = ops.cast(fixed, out)
    return out


# ---------------------------------------------------------------------------------------------
# The CPU side: the recurrence in numpy (the tests' ground truth, and runs in fp32 for accuracy)


def recurrence(q, k, v, g, b, w, cu, h0, scale, dtype=np.float64):
    """SPEC.md's recurrence token by token, every value head at once; states V-first
    ([N, Hv, V, K]). Runs in `dtype`; returns (o, final_state) in it."""
    q, k, v, g, b, w = (np.asarray(x, dtype=dtype) for x in (q, k, v, g, b, w))
    hq, hv = q.shape[1], v.shape[1]
    key = np.arange(hv) // (hv // hq)
    o = np.zeros(v.shape, dtype=dtype)
    fs = np.zeros((len(cu) - 1, hv, v.shape[-1], k.shape[-1]), dtype=dtype)
    for n in range(len(cu) - 1):
        s = (np.zeros((hv, k.shape[-1], v.shape[-1]), dtype=dtype) if h0 is None
             else np.asarray(h0[n], dtype=dtype).swapaxes(-1, -2).copy())       # [Hv, K, V]
        for t in range(int(cu[n]), int(cu[n + 1])):
            kt, qt = k[t, key], q[t, key]
            s = np.exp(g[t, key])[:, :, None] * s
            u = w[t] * v[t] - np.einsum("hkv,hk->hv", s, b[t, key] * kt)
            s = s + kt[:, :, None] * u[:, None, :]
            o[t] = dtype(scale) * np.einsum("hkv,hk->hv", s, qt)
        fs[n] = s.swapaxes(-1, -2)
    return o, fs


def model_inputs(lengths, hq, hv, dim, decay=None, initial=False, seed=0):
    """Model-like inputs in numpy (gdn2.testing's "model" family, simplified): unit q and k, v
    normal, b and w sigmoids; g = -A softplus(x) with A in [1, 16] per key head, or U[decay, 0]."""
    rng = np.random.default_rng(seed)
    T = sum(lengths)
    unit = rng.normal(size=(2, T, hq, dim))
    unit /= np.linalg.norm(unit, axis=-1, keepdims=True)
    if decay is None:
        softplus = np.logaddexp(0.0, rng.normal(-4.0, 1.0, size=(T, hq, dim)))
        g = -rng.uniform(1.0, 16.0, size=(1, hq, 1)) * softplus
    else:
        g = rng.uniform(decay, 0.0, size=(T, hq, dim))
    sigmoid = lambda x: 1.0 / (1.0 + np.exp(-x))  # noqa: E731
    inp = {"q": unit[0], "k": unit[1], "v": rng.normal(size=(T, hv, dim)), "g": g,
           "b": sigmoid(rng.normal(size=(T, hq, dim))), "w": sigmoid(rng.normal(size=(T, hv, dim))),
           "initial_state": rng.normal(size=(len(lengths), hv, dim, dim)) * 0.1 if initial else None}
    return inp, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def bf16(x):
    """Rounds to bf16 (to nearest, ties to even) and back to fp32; finite inputs."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)


def norm_rel(x, ref):
    return float(np.linalg.norm(np.asarray(x, dtype=np.float64) - ref) / np.linalg.norm(ref))


def cpu_accuracy(dim=128, hq=2, hv=4):
    """What the decomposition costs in accuracy: runs in fp32, outputs rounded to bf16 once
    (direct) or the segment runs' outputs kept in bf16 or fp32 before the correction."""
    rows = []
    for decay in (None, -50.0):
        for lengths, seg_len in (((512,), 128), ((300, 41, 200), 64)):
            inp, cu = model_inputs(lengths, hq, hv, dim, decay, initial=True, seed=5)
            for n in ("q", "k", "v", "b", "w"):
                inp[n] = bf16(inp[n])               # the kernels' bf16 inputs
            scale = dim ** -0.5
            args = [inp[n] for n in ("q", "k", "v", "g", "b", "w")]
            ref_o, ref_s = recurrence(*args, cu, inp["initial_state"], scale)
            dir_o, dir_s = recurrence(*args, cu, inp["initial_state"], scale, np.float32)
            ix = SegmentIndex(ArrayOps(), plan(lengths, seg_len))
            a_in, b_in = split_inputs(ix, {n: None if x is None else np.asarray(x, np.float32)
                                           for n, x in inp.items()}, hq, hv)
            runs = [recurrence(*(x[n] for n in ("q", "k", "v", "g", "b", "w")), c, x["initial_state"],
                               scale, np.float32) for x, c in ((a_in, ix.plan.cu_a), (b_in, ix.plan.cu_b))]
            row = {"decay": "model-like" if decay is None else f"U[{decay:g}, 0]", "lengths": list(lengths),
                   "seg_len": seg_len, "direct": [norm_rel(bf16(dir_o), ref_o), norm_rel(dir_s, ref_s)]}
            for name, keep in (("bf16", bf16), ("fp32", lambda x: x)):
                start, final = segment_states(ix, runs[0][1], runs[1][1], hq, hv)
                out = combine(ix, keep(runs[0][0]), keep(runs[1][0]), start, hq, hv,
                              np.zeros(dir_o.shape, dtype=np.float32))
                row[name] = [norm_rel(bf16(out), ref_o), norm_rel(final, ref_s)]
            rows.append(row)
            print(f"{row['decay']:>12} {'+'.join(map(str, lengths)):>12} seg {seg_len:>3}: output / state "
                  f"error, direct {row['direct'][0]:.3e} / {row['direct'][1]:.3e}, segments with bf16 run "
                  f"outputs {row['bf16'][0]:.3e} / {row['bf16'][1]:.3e}, with fp32 {row['fp32'][0]:.3e} / "
                  f"{row['fp32'][1]:.3e}", flush=True)
    return rows


# ---------------------------------------------------------------------------------------------
# The prediction: the fused path's CTAs as an LPT list over the SMs

BLOCK_US = {128: 1.84, 64: 1.44}   # per 16-token block (performance.md: 3,491 and 2,666 SM cycles)


def fused_ctas(lengths, heads, sms=132):
    """Each CTA's time (us) of a fused call: 64-channel CTAs (two per head) where they fit in one
    wave, else 128-channel ones (src/kernels/kernel_params.h, fused_slices)."""
    channels = 64 if 2 * len(lengths) * heads <= sms else 128
    per_head = 128 // channels
    return [-(-n // 16) * BLOCK_US[channels] for n in lengths for _ in range(heads * per_head)]


def makespan(ctas, sms=132):
    """Longest processing time first over `sms` SMs: the time the last one ends."""
    ends = [0.0] * sms
    for t in sorted(ctas, reverse=True):
        heapq.heappush(ends, heapq.heappop(ends) + t)
    return max(ends)


def predicted_us(lengths, hq, hv, seg_len=None):
    """Kernel time of the direct fused call, or of calls A and B side by side."""
    if seg_len is None:
        return makespan(fused_ctas(lengths, hv))
    p = plan(lengths, seg_len)
    return makespan(fused_ctas(np.diff(p.cu_a).tolist(), hv) + fused_ctas(np.diff(p.cu_b).tolist(), hv + hq))


# ---------------------------------------------------------------------------------------------
# The GPU probe

# (name, lengths, Hq, Hv, initial state, segment lengths to try, algorithms of calls A and B);
# model-like inputs, final state on. "auto" lets the segments of long sequences take the chunked path.
S3_LENGTHS = (63, 129, 257, 31, 512, 65, 128, 17, 333, 91, 211, 7, 401, 255, 144, 73, 289, 377, 19, 694)
SHAPES = (
    ("S1-MHA-T64", (64,), 16, 16, False, (32, 16), ("fused",)),
    ("S2-MHA-T1024", (1024,), 16, 16, True, (512, 256, 128), ("fused",)),
    ("S5-GVA2-T1024", (1024,), 16, 32, False, (512, 256), ("fused",)),
    ("S3-MHA-PACKED-T4096", S3_LENGTHS, 16, 16, False, (512, 384, 256, 192), ("fused",)),
    ("1x4096-hv16", (4096,), 16, 16, False, (2048, 1024, 512), ("fused", "auto")),
    ("L32K-MHA", (32768,), 16, 16, False, (16384, 8192), ("fused", "auto")),
)
REFERENCE_MAX_TOKENS = 4096   # the fp64 CPU reference beyond this takes too long for a probe
DEVICE = "cuda"               # a dry run of the flow on the CPU sets "cpu" (with stand-ins for CUDA)


def probe_shape(torch, gdn2, testing, graph_ms, name, lengths, hq, hv, h0, seg_lens, algorithms,
                replays):
    inp = testing.make_inputs(lengths, hq, hv, kind="model", initial_state=h0, seed=11,
                              device=DEVICE, gen_device=DEVICE)
    q, k, v, g, b, w = (inp[n] for n in ("q", "k", "v", "g", "b", "w"))
    ref = None
    if sum(lengths) <= REFERENCE_MAX_TOKENS:
        ref = gdn2.reference_tokenwise(q, k, v, g, b, w, cu_seqlens=inp["cu_seqlens"],
                                       initial_state=inp["initial_state"])

    def direct(algorithm, hint=False):
        return lambda: gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=inp["cu_seqlens"],
                                       initial_state=inp["initial_state"], output_final_state=True,
                                       algorithm=algorithm,
                                       max_seqlen=max(lengths) if hint else None)

    def errors(o, fs):
        if ref is None:
            return None
        return [testing.norm_rel_error(o, ref[0]), testing.norm_rel_error(fs, ref[1])]

    rec = {"name": name, "lengths": list(lengths), "hq": hq, "hv": hv, "initial_state": h0,
           "direct": {}, "segments": []}
    for algorithm, hint in (("auto", True), ("chunked", False), ("fused", False)):
        fn = direct(algorithm, hint)
        o, fs = fn()
        label = algorithm + ("+hint" if hint else "")
        rec["direct"][label] = {"graph_us": 1e3 * statistics.median(graph_ms(fn, replays)),
                                "errors": errors(o, fs)}
        if algorithm == "auto":
            base_o, base_fs = o, fs
    ops = ArrayOps(torch)
    side = torch.cuda.Stream()
    for seg_len, algorithm in ((n, a) for n in seg_lens for a in algorithms):
        p = plan(lengths, seg_len)
        if len(p.seq_b) == 0:
            continue
        ix = SegmentIndex(ops, p, DEVICE)
        a_in, b_in = split_inputs(ix, inp, hq, hv)
        cu_a = torch.as_tensor(p.cu_a, device=DEVICE)
        cu_b = torch.as_tensor(p.cu_b, device=DEVICE)
        out = torch.empty_like(v)
        # the calls' outputs allocated here, once: nothing is allocated on the side stream
        outputs = {"a": (torch.empty_like(a_in["v"]),
                         torch.empty((len(lengths), hv, v.shape[-1], q.shape[-1]),
                                     dtype=torch.float32, device=v.device)),
                   "b": (torch.empty_like(b_in["v"]), torch.empty_like(b_in["initial_state"]))}

        def call(x, c, cu):
            return gdn2.chunk_gdn2(*(c[n] for n in ("q", "k", "v", "g", "b", "w")), cu_seqlens=cu,
                                   initial_state=c["initial_state"], output=outputs[x][0],
                                   final_state=outputs[x][1], algorithm=algorithm)

        def call_a():
            return call("a", a_in, cu_a)

        def call_b():
            return call("b", b_in, cu_b)

        def finish(ra, rb):
            start, final = segment_states(ix, ra[1], rb[1], hq, hv)
            combine(ix, ra[0].float(), rb[0].float(), start, hq, hv, out)
            return out, final

        def a_and_b():
            main = torch.cuda.current_stream()
            side.wait_stream(main)
            with torch.cuda.stream(side):
                rb = call_b()
            ra = call_a()
            main.wait_stream(side)
            return ra, rb

        def whole():
            return finish(*a_and_b())

        ra, rb = call_a(), call_b()
        o, fs = whole()
        torch.cuda.synchronize()
        seg = {"seg_len": seg_len, "algorithm": algorithm, "sequences_a": len(p.cu_a) - 1,
               "sequences_b": len(p.seq_b),
               "errors": errors(o, fs),
               "vs_auto": [testing.norm_rel_error(o, base_o), testing.norm_rel_error(fs, base_fs)]}
        for label, fn in (("whole", whole), ("a_and_b", a_and_b), ("call_a", call_a),
                          ("call_b", call_b),
                          ("scan_and_correction", lambda: finish(ra, rb)),
                          ("gathers", lambda: split_inputs(ix, inp, hq, hv))):
            seg[label + "_us"] = 1e3 * statistics.median(graph_ms(fn, replays))
        rec["segments"].append(seg)
        print(f"  {name} seg {seg_len} {algorithm}: whole {seg['whole_us']:.1f} us "
              f"(A and B {seg['a_and_b_us']:.1f}, A {seg['call_a_us']:.1f}, "
              f"B {seg['call_b_us']:.1f}, scan+corr {seg['scan_and_correction_us']:.1f}; gathers "
              f"{seg['gathers_us']:.1f} apart) errors {seg['errors']}", flush=True)
    print(f"  {name} direct: " + ", ".join(f"{k} {d['graph_us']:.1f} us" for k, d in rec["direct"].items()),
          flush=True)
    return rec


def markdown(records):
    lines = ["| shape | direct auto+hint (us) | chunked | fused | seg_len, A and B by | A + B sequences "
             "| whole (us) | A and B "
             "| A | B | scan + correction | gathers (apart) | output / state error (ref) | (direct auto) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def errs(e):
        return "-" if e is None else f"{e[0]:.2e} / {e[1]:.2e}"
    for r in records:
        d = r["direct"]
        for s in r["segments"]:
            lines.append(
                f"| {r['name']} | {d['auto+hint']['graph_us']:.1f} | {d['chunked']['graph_us']:.1f} "
                f"| {d['fused']['graph_us']:.1f} | {s['seg_len']}, {s['algorithm']} "
                f"| {s['sequences_a']} + {s['sequences_b']} "
                f"| {s['whole_us']:.1f} | {s['a_and_b_us']:.1f} | {s['call_a_us']:.1f} "
                f"| {s['call_b_us']:.1f} | {s['scan_and_correction_us']:.1f} | {s['gathers_us']:.1f} "
                f"| {errs(s['errors'])} | {errs(d['auto+hint']['errors'])} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--replays", type=int, default=30)
    ap.add_argument("--shapes", default=None, help="comma-separated names (default: all)")
    ap.add_argument("--cpu-accuracy", action="store_true",
                    help="no GPU: the decomposition's errors with runs in fp32 (numpy), then exit")
    ap.add_argument("--model", action="store_true",
                    help="no GPU: the predicted kernel times (LPT list of the fused CTAs), then exit")
    args = ap.parse_args()
    if args.cpu_accuracy:
        cpu_accuracy()
        return 0
    if args.model:
        for name, lengths, hq, hv, _, seg_lens, _ in SHAPES:
            print(f"{name}: direct fused {predicted_us(lengths, hq, hv):.0f} us; segments " + ", ".join(
                f"{n}: {predicted_us(lengths, hq, hv, n):.0f} us" for n in seg_lens))
        return 0
    try:
        import torch
    except ImportError:
        print("segments: no torch, nothing to time")
        return 0
    if not torch.cuda.is_available():
        print("segments: no GPU, nothing to time")
        return 0
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gdn2
    from gdn2 import testing
    from bench import default_out_dir, graph_time_ms, metadata, copy_bandwidth

    torch.backends.cuda.matmul.allow_tf32 = False   # the scan and correction in full fp32
    wanted = None if args.shapes is None else set(args.shapes.split(","))
    records = []
    for name, lengths, hq, hv, h0, seg_lens, algorithms in SHAPES:
        if wanted is None or name in wanted:
            records.append(probe_shape(torch, gdn2, testing,
                                       lambda fn, n: graph_time_ms(torch, fn, 1, n),
                                       name, lengths, hq, hv, h0, seg_lens, algorithms, args.replays))
    out = args.out or str(default_out_dir(torch)) + "-segments"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "segments.json"), "w") as f:
        json.dump({"meta": metadata(torch, gdn2, copy_bandwidth(torch), None), "shapes": records}, f,
                  indent=1)
    table = markdown(records)
    with open(os.path.join(out, "segments.md"), "w") as f:
        f.write(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
