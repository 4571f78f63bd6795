"""Inputs and error measures shared by the tests (tests/python) and the benchmark (bench/bench.py).

Two input families (../shared/SPEC.md):
  * "gentle": the canonical rows' distributions, generated exactly as the existing kernel's
    benchmark does (CPU generator, seed per row, tensors drawn in the order q, k, v, g, b, w,
    initial_state).
  * "model": what a trained model feeds the layer: q and k L2-normalised over K, v ~ N(0, 1),
    b and w sigmoids of normals, g = -exp(A_log) * softplus(x + dt_bias) with A = exp(A_log) in
    [1, 16] per key head and dt in [1e-3, 1e-1] per channel (Mamba-style initialisation), which
    reaches -20 and below.
"""

import math
from dataclasses import dataclass

import torch

HEAD_DIM = 128  # K = V


@dataclass(frozen=True)
class Row:
    """One benchmark row: a problem shape, its input family and its state modes."""
    name: str
    lengths: tuple
    hq: int
    hv: int
    initial_state: bool
    final_state: bool
    kind: str = "gentle"
    seed: int = 0

    @property
    def tokens(self):
        return sum(self.lengths)


# The canonical rows of SPEC.md, with the seeds of the existing kernel's benchmark.
CANONICAL_ROWS = (
    Row("S1-MHA-T64", (64,), 16, 16, False, False, "gentle", 6651),
    Row("S2-MHA-T1024", (1024,), 16, 16, True, True, "gentle", 6652),
    Row("S3-MHA-PACKED-T4096",
        (63, 129, 257, 31, 512, 65, 128, 17, 333, 91, 211, 7, 401, 255, 144, 73, 289, 377, 19, 694),
        16, 16, False, True, "gentle", 6653),
    Row("S4-GVA4-T1024", (1024,), 16, 64, True, True, "gentle", 6654),
    Row("S5-GVA2-T1024", (1024,), 16, 32, False, True, "gentle", 6655),
)


def offsets(lengths, dtype=torch.int64, device="cpu"):
    """cu_seqlens for the given sequence lengths."""
    cu = [0]
    for n in lengths:
        cu.append(cu[-1] + int(n))
    return torch.tensor(cu, dtype=dtype, device=device)


def random_lengths(count, low, high, seed):
    """`count` lengths uniform in [low, high], reproducible."""
    gen = torch.Generator().manual_seed(seed)
    return tuple(int(x) for x in torch.randint(low, high + 1, (count,), generator=gen))


def make_inputs(lengths, hq, hv, *, kind="model", initial_state=False, decay=None, b_value=None,
                seed=0, device="cuda", cu_dtype=torch.int64, gen_device="cpu"):
    """Inputs of chunk_gdn2 as a dict (q, k, v, g, b, w, cu_seqlens, initial_state).

    kind: "gentle" (SPEC canonical distributions) or "model" (see the module docstring).
    decay: None (the family's own g), ("uniform", lo) for g ~ U[lo, 0], ("const", c), or
        ("mixed", lo): g ~ U[-1, 0] except g ~ U[lo, 0] on tokens t with t % 192 in [100, 164), so
        that some chunks decay gently and others strongly (phase 1 picks its path per chunk);
        ("channels", lo): the same, but strong only on the key channels c % 37 == 5 (four of 128),
        so that few channels of a block fail the fused path's range rule (fused.cuh).
    b_value: None (the family's own b) or a constant for every entry of b.
    gen_device: where the random numbers are drawn ("cpu" reproduces the canonical rows bit for
    bit; the device is much faster for large problems).
    """
    T, K, V = sum(lengths), HEAD_DIM, HEAD_DIM
    gen = torch.Generator(device=gen_device).manual_seed(seed)
    kshape, vshape = (T, hq, K), (T, hv, V)

    def randn(shape):
        return torch.randn(shape, generator=gen, device=gen_device)

    def rand(shape):
        return torch.rand(shape, generator=gen, device=gen_device)

    if kind == "gentle":
        q = randn(kshape) * 0.03
        k = randn(kshape) * 0.01
        v = randn(vshape) * 0.1
        g = -rand(kshape) * 0.05
        b = rand(kshape)
        w = rand(vshape)
        h0 = randn((len(lengths), hv, V, K)) * 0.005 if initial_state else None
    elif kind == "model":
        q = torch.nn.functional.normalize(randn(kshape), dim=-1)
        k = torch.nn.functional.normalize(randn(kshape), dim=-1)
        v = randn(vshape)
        a_log = torch.log(1.0 + 15.0 * rand((hq, 1)))
        dt = torch.exp(math.log(1e-3) + (math.log(1e-1) - math.log(1e-3)) * rand((hq, K)))
        dt_bias = dt + torch.log(-torch.expm1(-dt))  # softplus^-1(dt)
        g = -torch.exp(a_log) * torch.nn.functional.softplus(randn(kshape) + dt_bias)
        b = torch.sigmoid(randn(kshape))
        w = torch.sigmoid(randn(vshape))
        h0 = randn((len(lengths), hv, V, K)) * 0.1 if initial_state else None
    else:
        raise ValueError(f"unknown input family {kind!r}")

    if decay is not None:
        mode, value = decay
        if mode == "uniform":
            g = rand(kshape) * value  # value = lo < 0: g ~ U[lo, 0]
        elif mode == "const":
            g = torch.full(kshape, float(value), device=gen_device)
        elif mode in ("mixed", "channels"):
            g = -rand(kshape)
            t = torch.arange(T, device=gen_device) % 192
            strong = ((t >= 100) & (t < 164)).view(T, 1, 1)
            if mode == "channels":
                strong = strong & (torch.arange(K, device=gen_device) % 37 == 5).view(1, 1, K)
            g = torch.where(strong, rand(kshape) * value, g)
        else:
            raise ValueError(f"unknown decay mode {mode!r}")
    if b_value is not None:
        b = torch.full(kshape, float(b_value), device=gen_device)

    bf16 = torch.bfloat16
    return {
        "q": q.to(device=device, dtype=bf16),
        "k": k.to(device=device, dtype=bf16),
        "v": v.to(device=device, dtype=bf16),
        "g": g.to(device=device, dtype=torch.float32),
        "b": b.to(device=device, dtype=bf16),
        "w": w.to(device=device, dtype=bf16),
        "cu_seqlens": offsets(lengths, dtype=cu_dtype, device=device),
        "initial_state": None if h0 is None else h0.to(device=device, dtype=torch.float32),
    }


def row_inputs(row, device="cuda", gen_device="cpu"):
    """Inputs of a benchmark row."""
    return make_inputs(row.lengths, row.hq, row.hv, kind=row.kind,
                       initial_state=row.initial_state, seed=row.seed, device=device,
                       gen_device=gen_device)


def norm_rel_error(x, ref):
    """||x - ref|| / ||ref|| in fp64; inf when x holds NaN or Inf (so it never passes)."""
    x = x.detach().to(device="cpu", dtype=torch.float64)
    ref = ref.detach().to(device="cpu", dtype=torch.float64)
    if x.shape != ref.shape or not bool(torch.isfinite(x).all()):
        return math.inf
    denom = torch.linalg.vector_norm(ref).item()
    num = torch.linalg.vector_norm(x - ref).item()
    if denom == 0.0:
        return 0.0 if num == 0.0 else math.inf
    return num / denom


def floor_bytes(tokens, n_seq, hq, hv, initial_state, final_state, k=HEAD_DIM, v=HEAD_DIM):
    """Bytes every call must move (SPEC.md, "The physical floor")."""
    per_token = hq * k * (2 + 2 + 4 + 2) + hv * v * (2 + 2 + 2)
    states = (int(bool(initial_state)) + int(bool(final_state))) * n_seq * hv * v * k * 4
    return tokens * per_token + states


def capture_graph(fn, calls=1):
    """Captures `calls` calls of fn() in a CUDA graph, after a warm-up call on a side stream (so
    that lazy initialisation stays out of the graph). Returns (graph, result of the last call)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    result = None
    with torch.cuda.graph(graph):
        for _ in range(calls):
            result = fn()
    return graph, result
