"""The gdn2 torch ops: library loading, fake (meta) implementations, thin Python wrappers.

The ops are defined in C++ (src/bindings/torch_ops.cpp), whose `m.set_python_module("gdn2.ops")`
names this module as the home of their fake implementations. Every rule of the contract is
checked in C++ (src/contract.cpp); the wrappers here only pick shapes and defaults, so the
Python overhead of a call stays at a few attribute reads. Eager calls go through gdn2._eager
(src/bindings/eager_module.cpp) where it was built: the same ops through the C++ dispatcher,
without torch.ops' matching of Python arguments against the schema. Under torch.compile, and
where gdn2._eager is missing, they go through torch.ops.
"""

import os

import torch

_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libgdn2_torch.so")
if not os.path.exists(_LIBRARY):
    raise ImportError(
        f"gdn2: the op library {_LIBRARY} is not built. Build it with "
        "`cmake -S . -B build-torch -G Ninja -DGDN2_BUILD_TORCH=ON "
        "-DGDN2_TORCH_ROOT=$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))')"
        " && ninja -C build-torch gdn2_torch` (see README.md)."
    )
try:
    torch.ops.load_library(_LIBRARY)
except OSError as exc:  # typically built against another torch than the one importing it
    raise ImportError(
        f"gdn2: {_LIBRARY} does not load into torch {torch.__version__} ({exc}). The op library "
        "must be built against the torch that loads it: rebuild it (README.md, \"Python\")."
    ) from exc

_forward = torch.ops.gdn2.forward.default
_forward_out = torch.ops.gdn2.forward_out.default
try:
    from gdn2 import _eager
except ImportError:  # not built (no Python headers at build time) or built for another Python
    _eager = None
_reference_tokenwise = torch.ops.gdn2.reference_tokenwise.default


# Shapes are read only where the ranks allow it; anything else gets an empty placeholder, so that
# the contract check (not an IndexError here) reports a wrong input. Same rule as the C++ op.
def _new_output(q, v):
    if q.dim() == 3 and v.dim() == 3:
        return q.new_empty((q.shape[0], v.shape[1], v.shape[2]), dtype=torch.bfloat16)
    return q.new_empty((0,), dtype=torch.bfloat16)


def _new_final_state(q, v, cu_seqlens):
    if q.dim() == 3 and v.dim() == 3 and cu_seqlens.dim() == 1 and cu_seqlens.shape[0] >= 1:
        shape = (cu_seqlens.shape[0] - 1, v.shape[1], v.shape[2], q.shape[2])
        return q.new_empty(shape, dtype=torch.float32)
    return q.new_empty((0,), dtype=torch.float32)


@torch.library.register_fake("gdn2::forward")
def _forward_fake(q, k, v, g, b, w, cu_seqlens, initial_state, scale, output_final_state, validate,
                  algorithm=0, max_seqlen=0, initial_state_indices=None):
    output = _new_output(q, v)
    if output_final_state:
        final_state = _new_final_state(q, v, cu_seqlens)
    else:
        final_state = q.new_empty((0,), dtype=torch.float32)
    return output, final_state


@torch.library.register_fake("gdn2::forward_out")
def _forward_out_fake(q, k, v, g, b, w, cu_seqlens, initial_state, output, final_state, scale,
                      validate, algorithm=0, max_seqlen=0, initial_state_indices=None,
                      final_state_indices=None):
    return None


# gdn2::Algorithm (include/gdn2/gdn2.h)
ALGORITHMS = {"auto": 0, "chunked": 1, "recurrent": 2, "fused": 3}


def chunk_gdn2(q, k, v, g, b, w, *, cu_seqlens, initial_state=None, output_final_state=False,
               scale=None, output=None, final_state=None, validate=False, algorithm="auto",
               max_seqlen=None, initial_state_indices=None, final_state_indices=None):
    """Gated DeltaNet-2 forward over packed variable-length sequences (CUDA, sm_90).

    q, k, b: bf16 [T, Hq, K]; g: fp32 [T, Hq, K] raw log decay (<= 0); v, w: bf16 [T, Hv, V];
    cu_seqlens: int32/int64 [N + 1]; initial_state: fp32 or bf16 [N, Hv, V, K] or None. The state is
    "V-first" (each head's S^T): FLA's default [N, H, K, V] state has the same shape and must be
    transposed first (gdn2.fla_compat.chunk_gdn2 takes FLA's layouts as they are).
    scale defaults to K ** -0.5. `output` (bf16 [T, Hv, V]) and `final_state` (fp32 or bf16
    [N, Hv, V, K], rounded once to nearest even if bf16) may be passed in; they are then written
    in place. With output_final_state the final state is allocated in fp32.

    Returns `o`, or `(o, final_state)` when output_final_state is set or final_state is given.
    Runs on the current stream with no host synchronisation (capturable in a CUDA graph), except
    with validate=True, which checks cu_seqlens, g, b, w and the state indices on the device and
    waits for the verdict.
    algorithm: "auto" (the default: chosen from the sizes and max_seqlen; without the hint, where
    the sizes leave two algorithms possible, the kernels choose on the device from cu_seqlens;
    README.md "Three algorithms"),
    "chunked" (64-token chunks in two phases: long sequences), "recurrent" (the recurrence token
    by token: sequences of a few tokens) or "fused" (16-token blocks in one kernel: sequences of
    tens of tokens).
    max_seqlen: optional hint, the longest sequence's length (as in FlashAttention's varlen API);
    only "auto" reads it, to pick on the host (which saves the few us of the device's choice), and
    a wrong value never makes a result wrong.
    initial_state_indices, final_state_indices: optional int32 [N], for states kept in a pool of
    slots (as serving engines do). With initial_state_indices, initial_state is a pool
    [P, Hv, V, K] and sequence n starts from slot initial_state_indices[n] (zeros where negative);
    with final_state_indices, `final_state` must be given, a pool [P', Hv, V, K] into whose slot
    final_state_indices[n] sequence n's final state goes (nowhere where negative). A pool's first
    stride may exceed Hv V K (a multiple of 4). final_state may be initial_state itself: the pool
    is then updated in place (no sequence may write a slot that another reads, and no two
    sequences may write one slot). An index >= P touches no state and makes that sequence's output
    rows NaN. validate=True reports both (the slot rules by comparing every pair of sequences).
    Errors: ValueError naming the argument for contract violations, RuntimeError for device or
    CUDA failures; nothing is written when a check fails.
    """
    if scale is None:
        scale = q.shape[-1] ** -0.5 if q.dim() > 0 else 1.0
    code = ALGORITHMS.get(algorithm) if isinstance(algorithm, str) else None
    if code is None:
        raise ValueError(f"algorithm: expected one of {sorted(ALGORITHMS)}, got {algorithm!r}")
    hint = 0 if max_seqlen is None else max_seqlen
    if final_state_indices is not None and final_state is None:
        raise ValueError("final_state_indices: given without final_state (the pool of states it "
                         "indexes); pass final_state=")
    eager = _eager is not None and not torch.compiler.is_compiling()
    if output is None and final_state is None:
        o, ht = (_eager.forward if eager else _forward)(
            q, k, v, g, b, w, cu_seqlens, initial_state, float(scale), output_final_state, validate,
            code, hint, initial_state_indices)
        return (o, ht) if output_final_state else o
    if output is None:
        output = _new_output(q, v)
    if final_state is None and output_final_state:
        final_state = _new_final_state(q, v, cu_seqlens)
    (_eager.forward_out if eager else _forward_out)(
        q, k, v, g, b, w, cu_seqlens, initial_state, output, final_state, float(scale), validate,
        code, hint, initial_state_indices, final_state_indices)
    return output if final_state is None else (output, final_state)


def reference_tokenwise(q, k, v, g, b, w, *, cu_seqlens, initial_state=None, scale=None):
    """The fp64 tokenwise recurrence on the CPU (the ground truth of the tests).

    Accepts CPU or CUDA tensors of the chunk_gdn2 shapes (any float dtype); returns
    `(o, final_state)` as float64 CPU tensors [T, Hv, V] and [N, Hv, V, K].
    """
    if scale is None:
        scale = q.shape[-1] ** -0.5
    return _reference_tokenwise(q, k, v, g, b, w, cu_seqlens, initial_state, float(scale))
