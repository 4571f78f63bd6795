"""How the registered ops trace under torch.compile, on meta tensors (torch and the built op
library, no GPU): what a serving engine that compiles its model sees.

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
