"""The registered ops on meta tensors (torch and the built op library, no GPU): how they trace under
torch.compile, what a serving engine that compiles its model sees, and gdn2._eager's calls into
the ops' Python (fake) kernels.

The max_seqlen hint is a SymInt in the ops' schemas (src/bindings/torch_ops.cpp): an engine passes
a new longest length every batch, and with an `int` Dynamo specialised on each value and
recompiled every call until its recompile limit (fullgraph: an error at the ninth value).
"""

import pytest

from conftest import require_gdn2_op

torch, gdn2 = require_gdn2_op()

T, N, HQ, HV, D = 64, 2, 2, 4, 128


def meta_inputs():
    key = dict(dtype=torch.bfloat16, device="meta")
    return dict(q=torch.empty(T, HQ, D, **key), k=torch.empty(T, HQ, D, **key),
                v=torch.empty(T, HV, D, **key), g=torch.empty(T, HQ, D, device="meta"),
                b=torch.empty(T, HQ, D, **key), w=torch.empty(T, HV, D, **key),
                cu_seqlens=torch.empty(N + 1, dtype=torch.int32, device="meta"))


class CountingBackend:
    """A torch.compile backend that counts the graphs it is given and runs them as traced."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


@pytest.mark.parametrize("into_caller_buffers", [False, True], ids=["forward", "forward_out"])
def test_a_new_max_seqlen_each_call_does_not_recompile(into_caller_buffers):
    torch._dynamo.reset()
    inp = meta_inputs()
    backend = CountingBackend()

    def call(q, k, v, g, b, w, cu_seqlens, hint):
        if into_caller_buffers:
            out = torch.empty(T, HV, D, dtype=torch.bfloat16, device="meta")
            gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu_seqlens, max_seqlen=hint, output=out)
            return out
        return gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu_seqlens, max_seqlen=hint)

    compiled = torch.compile(call, backend=backend, fullgraph=True)
    for hint in range(100, 116):  # twice Dynamo's default recompile limit of 8
        o = compiled(*inp.values(), hint)
        assert o.shape == (T, HV, D) and o.dtype == torch.bfloat16
    # The first value specialised, the second made it dynamic; none after that recompiled.
    assert len(backend.graphs) <= 2, f"{len(backend.graphs)} compilations for 16 values of max_seqlen"
    op = torch.ops.gdn2.forward_out.default if into_caller_buffers else torch.ops.gdn2.forward.default
    assert any(n.target == op for gm in backend.graphs for n in gm.graph.nodes), "the op is not in the graph"


def test_eager_binding_reaches_the_python_kernels_from_threads():
    """gdn2._eager releases Python's lock for the call (as torch.ops does, so that validate=True's
    wait for the GPU does not hold other threads). On meta tensors the dispatcher runs the ops'
    fake kernels, written in Python, which take the lock again: they must still run, from four
    threads at once, and the contract's errors must still be ValueErrors. (That the lock is free
    during a wait needs a GPU to show.)"""
    import threading

    eager = gdn2.ops._eager
    if eager is None:
        pytest.skip("gdn2._eager is not built for this Python (it needs Python's headers at build time)")
    inp = list(meta_inputs().values())
    o, ht = eager.forward(*inp, None, 0.1, True, False, 0, 7, None)
    assert o.shape == (T, HV, D) and o.device.type == "meta" and ht.shape == (N, HV, D, D)
    out = torch.empty(T, HV, D, dtype=torch.bfloat16, device="meta")
    eager.forward_out(*inp, None, out, None, 0.1, False, 0, 0, None, None)
    host = [torch.zeros(t.shape, dtype=t.dtype) for t in inp[:6]] + [torch.tensor([0, 30, 64], dtype=torch.int32)]
    with pytest.raises(ValueError, match="^q: expected a CUDA tensor"):
        eager.forward(*host, None, 0.1, False, False, 0, 0, None)
    errors = []

    def calls():
        try:
            for _ in range(200):
                o, _ = eager.forward(*inp, None, 0.1, True, False, 0, 7, None)
                assert o.shape == (T, HV, D)
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=calls) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread is still in the op after 120 s"
    assert not errors, errors[0]


def test_half_precision_is_named():
    """A float16 q (a common mistake for bf16) gets the contract's error naming both dtypes, through
    the registered op (host tensors: the dtype is checked before the device)."""
    inp = {name: torch.zeros(t.shape, dtype=t.dtype) for name, t in meta_inputs().items()}
    inp["cu_seqlens"] = torch.tensor([0, 30, 64], dtype=torch.int32)
    inp["q"] = inp["q"].half()
    with pytest.raises(ValueError, match="^q: expected dtype bfloat16, got float16$"):
        gdn2.chunk_gdn2(*(inp[n] for n in ("q", "k", "v", "g", "b", "w")), cu_seqlens=inp["cu_seqlens"])
