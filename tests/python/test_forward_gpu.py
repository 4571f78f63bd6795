"""GPU tests of gdn2.chunk_gdn2 against the fp64 tokenwise reference (issue 2, deliverable 4).

The case matrix runs the chunked path (algorithm="chunked": "auto" would send its smallest cases to
a one-launch path) and, on its short and mixed cases, the two one-launch paths (recurrent and
fused); "auto" runs in the canonical rows, the API tests and its own routing tests.

Every case checks, besides the error against the reference (norm-relative, NaN/Inf never pass):
outputs poisoned with NaN are fully written, redzones around output and final state are intact,
caller buffers are used in place, inputs are unchanged, a second call is bitwise equal, and a
CUDA-graph replay is bitwise equal to the eager call.
"""

import itertools
import math
import re

import pytest

from conftest import OUT_TOL, STATE_TOL, require_gpu_gdn2

torch, gdn2 = require_gpu_gdn2()

from gdn2.testing import (CANONICAL_ROWS, capture_graph, make_inputs, norm_rel_error,  # noqa: E402
                          random_lengths, row_inputs)

D = 128           # K = V
PAD = 1024        # redzone elements on each side of an output (keeps the view 16-byte aligned)
SENTINEL = {torch.bfloat16: -1536.0, torch.float32: -12345.5}

STATE_MODES = [(False, False), (True, False), (False, True), (True, True)]


def state_id(mode):
    initial, final = mode
    return ("h0" if initial else "noh0") + "-" + ("ht" if final else "noht")


# ---------------------------------------------------------------------------------------------
# helpers


def bitwise_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


class Guarded:
    """A NaN-poisoned view in the middle of a larger buffer whose margins hold a sentinel."""

    def __init__(self, shape, dtype):
        self.numel = math.prod(shape)
        self.sentinel = SENTINEL[dtype]
        self.buf = torch.full((PAD + self.numel + PAD,), self.sentinel, dtype=dtype, device="cuda")
        self.view = self.buf[PAD:PAD + self.numel].view(shape)
        self.view.fill_(float("nan"))

    def redzones_intact(self):
        margin = torch.full((PAD,), self.sentinel, dtype=self.buf.dtype, device="cuda")
        return (bitwise_equal(self.buf[:PAD], margin)
                and bitwise_equal(self.buf[PAD + self.numel:], margin))


def call(inp, **kwargs):
    return gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
                           cu_seqlens=inp["cu_seqlens"], initial_state=inp["initial_state"],
                           **kwargs)


ALGORITHMS = ["chunked", "recurrent", "fused"]
ONE_LAUNCH = ["recurrent", "fused"]  # the algorithms without phase 1


def reference(inp):
    return gdn2.reference_tokenwise(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
                                    cu_seqlens=inp["cu_seqlens"],
                                    initial_state=inp["initial_state"])


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def check_against_reference(inp, o, ht, what=""):
    ref_o, ref_ht = reference(inp)
    err_o = norm_rel_error(o, ref_o)
    assert err_o <= OUT_TOL, f"{what}output error {err_o:.3e} > {OUT_TOL:.0e}"
    if ht is not None:
        err_s = norm_rel_error(ht, ref_ht)
        assert err_s <= STATE_TOL, f"{what}final state error {err_s:.3e} > {STATE_TOL:.0e}"


def run_case(lengths, hq, hv, *, initial, final, kind="model", decay=None, b_value=None, seed=0,
             cu_dtype=torch.int32, algorithm="chunked"):
    inp = make_inputs(lengths, hq, hv, kind=kind, initial_state=initial, decay=decay,
                      b_value=b_value, seed=seed, device="cuda", cu_dtype=cu_dtype,
                      gen_device="cuda")
    check_inputs = {name: t.clone() for name, t in inp.items() if t is not None}
    T, N = sum(lengths), len(lengths)

    # 1. caller-provided, NaN-poisoned outputs inside redzones
    out = Guarded((T, hv, D), torch.bfloat16)
    ht = Guarded((N, hv, D, D), torch.float32) if final else None
    result = call(inp, output=out.view, final_state=None if ht is None else ht.view, algorithm=algorithm)
    if final:
        assert isinstance(result, tuple) and result[0] is out.view and result[1] is ht.view
    else:
        assert result is out.view
    torch.cuda.synchronize()
    assert not torch.isnan(out.view).any(), "output not fully written (NaN poison left)"
    assert out.redzones_intact(), "write outside output"
    if final:
        assert not torch.isnan(ht.view).any(), "final_state not fully written (NaN poison left)"
        assert ht.redzones_intact(), "write outside final_state"

    # 2. a second call (allocating path) is bitwise equal
    again = as_tuple(call(inp, output_final_state=final, algorithm=algorithm))
    assert len(again) == (2 if final else 1)
    assert bitwise_equal(again[0], out.view), "second call differs (output)"
    if final:
        assert bitwise_equal(again[1], ht.view), "second call differs (final_state)"

    # 3. CUDA-graph replay is bitwise equal to the eager call
    graph, captured = capture_graph(lambda: call(inp, output_final_state=final, algorithm=algorithm))
    captured = as_tuple(captured)
    for t in captured:
        t.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert bitwise_equal(captured[0], out.view), "graph replay differs (output)"
    if final:
        assert bitwise_equal(captured[1], ht.view), "graph replay differs (final_state)"
    del graph

    # 4. inputs unchanged
    for name, before in check_inputs.items():
        assert bitwise_equal(inp[name], before), f"input {name} was modified"

    # 5. accuracy against the fp64 tokenwise reference
    check_against_reference(inp, out.view, ht.view if final else None)


# ---------------------------------------------------------------------------------------------
# the case matrix

LENGTHS = {
    "T1": (1,),
    "T64": (64,),
    "T65": (65,),
    "T65+1": (65, 1),
    "T65+63": (65, 63),
    "T1024": (1024,),
    "1x32": (1,) * 32,
    "rand100": random_lengths(100, 1, 200, seed=7),
}


@pytest.mark.parametrize("kind", ["model", "gentle"])
@pytest.mark.parametrize("mode", STATE_MODES, ids=state_id)
@pytest.mark.parametrize("lengths", list(LENGTHS.values()), ids=list(LENGTHS))
def test_lengths(lengths, mode, kind):
    run_case(lengths, 16, 16, initial=mode[0], final=mode[1], kind=kind, seed=1)


@pytest.mark.parametrize("mode", STATE_MODES, ids=state_id)
@pytest.mark.parametrize("lengths", list(LENGTHS.values()), ids=list(LENGTHS))
@pytest.mark.parametrize("algorithm", ONE_LAUNCH)
def test_one_launch_lengths(lengths, mode, algorithm):
    run_case(lengths, 16, 16, initial=mode[0], final=mode[1], seed=1, algorithm=algorithm)


HEADS = [(16, 16), (16, 32), (16, 48), (16, 64), (4, 12), (1, 1), (2, 6)]


@pytest.mark.parametrize("mode", STATE_MODES, ids=state_id)
@pytest.mark.parametrize("hq,hv", HEADS, ids=[f"hq{a}-hv{b}" for a, b in HEADS])
def test_heads(hq, hv, mode):
    run_case((130, 63, 1), hq, hv, initial=mode[0], final=mode[1], kind="model", seed=2)


@pytest.mark.parametrize("hq,hv", HEADS, ids=[f"hq{a}-hv{b}" for a, b in HEADS])
@pytest.mark.parametrize("algorithm", ONE_LAUNCH)
def test_one_launch_heads(hq, hv, algorithm):
    run_case((130, 63, 1), hq, hv, initial=True, final=True, kind="model", seed=2, algorithm=algorithm)


@pytest.mark.parametrize("hv", [32, 48, 64])
def test_heads_long(hv):
    run_case((1024, 300), 16, hv, initial=True, final=True, kind="model", seed=3)


# Sequences where the 32-channel state pass runs alongside phase 1 (src/launch.cu: one sequence,
# more phase-1 items than SMs, the pass on at most half of them), with a lead round (every SM takes
# one item, then the pass gets the SMs of the CTAs from steady_ctas on), MHA and GVA2: 450 tokens
# (144 items on up to 132 SMs: the CTAs that go on take only items whose slot no chunk owns), 1000
# tokens of 8 key heads (136 items), 4288 and 3000 tokens (several rounds on the SMs left).
# (The 16K-token sequence of test_decays_long and the 2048-token one of test_decays are overlapped
# too: 16K without a lead round, 60 rounds on the SMs left; 2048 with one.)
OVERLAPPED = [((450,), 16, 16), ((1000,), 8, 16), ((4288,), 16, 16), ((3000,), 8, 16)]


@pytest.mark.parametrize("lengths,hq,hv", OVERLAPPED, ids=["T450-mha", "T1000-gva2", "T4288-mha", "T3000-gva2"])
def test_overlapped_pass(lengths, hq, hv):
    run_case(lengths, hq, hv, initial=True, final=True, kind="model", seed=8)


DECAYS = {
    "u0.05": ("uniform", -0.05),
    "u1": ("uniform", -1.0),
    "u5": ("uniform", -5.0),
    "u50": ("uniform", -50.0),
    "c1000": ("const", -1000.0),
    "c5.5": ("const", -5.5),      # the fastest decay that phase 1's tensor-core path still takes
    "mixed50": ("mixed", -50.0),  # gentle and strong chunks in one call: both phase-1 paths
    "ch50": ("channels", -50.0),  # strong on four key channels of 128: few fail the fused path's range rule
}


@pytest.mark.parametrize("lengths", [(2048,), (65, 63, 1)], ids=["T2048", "T65+63+1"])
@pytest.mark.parametrize("kind", ["model", "gentle"])
@pytest.mark.parametrize("decay", list(DECAYS.values()), ids=list(DECAYS))
def test_decays(decay, kind, lengths):
    run_case(lengths, 16, 16, initial=True, final=True, kind=kind, decay=decay, seed=4)


# The fused path has two forms (src/kernels/kernel_params.h, fused_slices): 64 value channels per
# CTA where the N Hv 2 CTAs fit on the SMs, else 128. On 132 SMs 16 value heads of three sequences
# take the first, 48 the second (so do test_one_launch_lengths' 1x32 and rand100, and
# test_one_launch_heads' hv32, hv48 and hv64).
FUSED_FORMS = [16, 48]


# Many more items than SMs: the fused path's CTAs run in several rounds (the 128-channel form).
@pytest.mark.parametrize("algorithm", ONE_LAUNCH)
def test_one_launch_many_sequences(algorithm):
    run_case(random_lengths(300, 1, 40, seed=9), 2, 2, initial=True, final=True, seed=9, algorithm=algorithm)


# Several rounds of the 128-channel form's items on at most 256 sequences: its persistent CTAs take
# the sequences longest first (fused.cuh, rank_sequences; ties of length among them); with strong
# decays most blocks also take the exact path for A and P.
@pytest.mark.parametrize("decay", [None, ("uniform", -50.0)], ids=["model", "u50"])
def test_fused_longest_first(decay):
    lengths = random_lengths(36, 1, 300, seed=11) + (64, 300, 64, 1)
    run_case(lengths, 4, 8, initial=True, final=True, decay=decay, seed=11, algorithm="fused")


# The fused path's pair form (the 64-channel form: a head's two CTAs as a cluster, each forming
# every other block, fused.cuh Roles::kCtas): 19, 9, 2 and 1 blocks per sequence, so that each
# CTA's rings and the four slots wrap several times and one CTA of a 1-block sequence forms
# nothing; gentle and strong blocks at both parities (the exact path for A and P in the strong
# ones), MHA and GVA; 2 N Hv <= 132 CTAs.
@pytest.mark.parametrize("decay", [None, ("mixed", -50.0), ("uniform", -50.0), ("channels", -50.0)],
                         ids=["model", "mixed50", "u50", "ch50"])
@pytest.mark.parametrize("hq,hv", [(16, 16), (4, 8)], ids=["mha16", "gva2"])
def test_fused_pair_form(decay, hq, hv):
    run_case((300, 129, 17, 1), hq, hv, initial=True, final=True, decay=decay, seed=12, algorithm="fused")


# The fused path's GVA pair (the 128-channel form where each key head has an even number of value
# heads and the sequences have 128 tokens on average: its two value heads' CTAs as a cluster, each
# forming every other block, fused.cuh Roles::kGvaPair): 6 sequences of 19, 9, 3, 2, 1 and 19
# blocks, 32 value heads (2 N Hv > 132), groups of 2 and 4 value heads, gentle and strong blocks at
# both parities; longest first (40 sequences); and the same 32 value heads on 8-token sequences,
# which take the plain 128-channel form (kernel_params.h, fused_gva_pair).
@pytest.mark.parametrize("decay", [None, ("mixed", -50.0), ("uniform", -50.0), ("channels", -50.0)],
                         ids=["model", "mixed50", "u50", "ch50"])
@pytest.mark.parametrize("hq", [16, 8], ids=["gva2", "gva4"])
def test_fused_gva_pair(decay, hq):
    run_case((300, 129, 40, 17, 1, 300), hq, 32, initial=True, final=True, decay=decay, seed=14, algorithm="fused")


def test_fused_gva_pair_short_sequences_take_the_plain_form():
    run_case((8,) * 40, 16, 32, initial=True, final=True, decay=("mixed", -50.0), seed=16, algorithm="fused")


def test_fused_gva_pair_longest_first():
    lengths = random_lengths(36, 140, 400, seed=15) + (64, 300, 64, 1)
    run_case(lengths, 2, 4, initial=True, final=True, decay=("mixed", -50.0), seed=15, algorithm="fused")


# The 128-channel form on persistent CTAs (kernel_params.h, fused_persistent: at most 4,096
# sequences; fused.cuh, fused_persistent_kernel): one CTA per SM takes items in turn, longest
# sequences first, claiming those past the first round, and runs their blocks as one stream. Every
# item's arithmetic is the same whichever CTA runs it and whatever ran on that CTA before, so a
# call of many rounds is bit for bit the same sequences in calls of one round each, where every CTA
# runs one item (16 value heads: 8 sequences per call on 132 SMs, more than the pair form's 4);
# test_fused_one_item_kernels checks the one-CTA-per-item kernels of the same arithmetic. The cases: 1-block items throughout
# (the claims' ring and the raw inputs requested across items), long and short mixed, strong
# decays (the exact path for A and P), MHA and GVA-4 (sequences shorter than the GVA pair's 128
# tokens on average), with initial and final states.
PERSISTENT = {
    "mha-1x300": ((1,) * 300, 16, 16, None),        # more than 256 sequences: in index order
    "mha-rand400": (random_lengths(400, 1, 40, seed=45), 4, 8, ("mixed", -50.0)),
    "mha-1x200": ((1,) * 200, 16, 16, None),
    "mha-rand64": (random_lengths(64, 1, 300, seed=41), 16, 16, None),
    "mha-rand64-strong": (random_lengths(64, 1, 300, seed=42), 16, 16, ("mixed", -50.0)),
    "mha-rand64-channels": (random_lengths(64, 1, 300, seed=42), 16, 16, ("channels", -50.0)),
    "gva4-rand40": (random_lengths(40, 1, 120, seed=43), 4, 16, ("mixed", -50.0)),
    "mha-one-long": ((700,) + random_lengths(30, 1, 64, seed=44), 16, 16, None),
    # The GVA pair on persistent clusters (kernel_params.h, fused_gva_pair_persistent): sequences of
    # 128 tokens and more, 32 value heads in pairs; one round of its clusters is 4 sequences.
    "gva2-pair-rand24": (random_lengths(24, 128, 400, seed=46), 16, 32, ("mixed", -50.0)),
    "gva4-pair-rand20": ((1024,) + random_lengths(19, 128, 300, seed=47), 8, 32, None),
    # Clusters whose first items are one block each: the first requests reach into later items.
    "gva2-pair-short-tail": ((600,) * 4 + (8,) * 8, 16, 32, None),
}


def sequences_of(inp, first, last):
    """The inputs of sequences [first, last) of `inp` as a call of their own."""
    cu = inp["cu_seqlens"].tolist()
    bos, eos = cu[first], cu[last]
    sub = {name: inp[name][bos:eos] for name in ("q", "k", "v", "g", "b", "w")}
    sub["cu_seqlens"] = (inp["cu_seqlens"][first:last + 1] - bos).contiguous()
    sub["initial_state"] = None if inp["initial_state"] is None else inp["initial_state"][first:last]
    return sub, bos, eos


@pytest.mark.parametrize("name", list(PERSISTENT))
def test_fused_persistent_matches_one_round_calls(name):
    lengths, hq, hv, decay = PERSISTENT[name]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    per_call = sms // hv  # a round of the 128-channel form: sms / 2 < per_call hv <= sms
    assert 2 * per_call * hv > sms and len(lengths) * hv > sms
    inp = make_inputs(lengths, hq, hv, kind="model", initial_state=True, decay=decay, seed=40,
                      device="cuda", cu_dtype=torch.int32, gen_device="cuda")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        o, ht = call(inp, output_final_state=True, algorithm="fused")
        torch.cuda.synchronize()
    kernels = {e.name for e in prof.events() if "fused" in e.name}
    persistent = len(lengths) <= (256 if "pair" in name else 4096)  # kernel_params.h, kFused(Pair)PersistentMaxSequences
    form = re.compile(r"fused_persistent_kernel<2,\s*%d>" % (2 if "pair" in name else 1))
    assert any(bool(form.search(k)) == persistent for k in kernels), f"{name}: ran {kernels}"
    assert all(bool(form.search(k)) == persistent for k in kernels), f"{name}: ran {kernels}"
    check_against_reference(inp, o, ht, f"{name}: ")
    for first in range(0, len(lengths), per_call):
        last = min(first + per_call, len(lengths))
        if (last - first) * hv <= sms // 2:  # a last group that small takes the pair form
            first = max(0, last - per_call)
        sub, bos, eos = sequences_of(inp, first, last)
        o1, ht1 = call(sub, output_final_state=True, algorithm="fused")
        assert bitwise_equal(o[bos:eos], o1), f"sequences {first}..{last - 1}: output differs"
        assert bitwise_equal(ht[first:last], ht1), f"sequences {first}..{last - 1}: final state differs"


# The one-CTA-per-item kernels of the 128-channel form (fused_v128.cu) and of its GVA pair
# (fused_v128_pair.cu), which run only past their persistent forms' bounds of sequences
# (kernel_params.h: 4,096 and 256): 4,100 one- and two-token sequences of one head, and 260
# sequences of 128 to 160 tokens of a GVA-2 group (the pair's 128 tokens on average), strong decays
# among model-like ones, initial and final states. Against the fp64 reference, and bit for bit the
# same sequences in two calls of half of them each, which take the persistent kernels.
@pytest.mark.parametrize("name,lengths,hq,hv,kernel", [
    ("v128-4100", tuple(1 + (i % 2) for i in range(4100)), 1, 1, r"fused_kernel<2,\s*1>"),
    ("gvapair-260", random_lengths(260, 128, 160, seed=48), 1, 2, r"fused_kernel<2,\s*2>")],
    ids=["v128-4100", "gvapair-260"])
def test_fused_one_item_kernels(name, lengths, hq, hv, kernel):
    inp = make_inputs(lengths, hq, hv, kind="model", initial_state=True, decay=("mixed", -50.0), seed=49,
                      device="cuda", cu_dtype=torch.int32, gen_device="cuda")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        o, ht = call(inp, output_final_state=True, algorithm="fused")
        torch.cuda.synchronize()
    kernels = {e.name for e in prof.events() if "fused" in e.name}
    assert kernels and all(re.search(kernel, k) for k in kernels), f"{name}: ran {kernels}"
    check_against_reference(inp, o, ht, f"{name}: ")
    half = len(lengths) // 2
    for first, last in ((0, half), (half, len(lengths))):
        sub, bos, eos = sequences_of(inp, first, last)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            o1, ht1 = call(sub, output_final_state=True, algorithm="fused")
            torch.cuda.synchronize()
        ran = {e.name for e in prof.events() if "fused" in e.name}
        assert ran and all("fused_persistent_kernel" in k for k in ran), f"{name} {first}..{last - 1}: ran {ran}"
        assert bitwise_equal(o[bos:eos], o1), f"{name}: sequences {first}..{last - 1}: output differs"
        assert bitwise_equal(ht[first:last], ht1), f"{name}: sequences {first}..{last - 1}: final state differs"


@pytest.mark.parametrize("decay", list(DECAYS.values()), ids=list(DECAYS))
@pytest.mark.parametrize("hv", FUSED_FORMS, ids=[f"hv{h}" for h in FUSED_FORMS])
@pytest.mark.parametrize("algorithm", ONE_LAUNCH)
def test_one_launch_decays(decay, hv, algorithm):
    run_case((65, 63, 1), 16, hv, initial=True, final=True, decay=decay, seed=4, algorithm=algorithm)


@pytest.mark.parametrize("decay", [("uniform", -50.0), ("const", -1000.0), None],
                         ids=["u50", "c1000", "model"])
def test_decays_long(decay):
    run_case((16384,), 16, 16, initial=True, final=True, kind="model", decay=decay, seed=5)


@pytest.mark.parametrize("lengths", [(1024,), (65, 63, 1)], ids=["T1024", "T65+63+1"])
@pytest.mark.parametrize("kind", ["model", "gentle"])
@pytest.mark.parametrize("b_value", [0.0, 1.0], ids=["b0", "b1"])
def test_erase_gate_extremes(b_value, kind, lengths):
    run_case(lengths, 16, 16, initial=True, final=True, kind=kind, b_value=b_value, seed=6)


@pytest.mark.parametrize("b_value", [0.0, 1.0], ids=["b0", "b1"])
@pytest.mark.parametrize("hv", FUSED_FORMS, ids=[f"hv{h}" for h in FUSED_FORMS])
@pytest.mark.parametrize("algorithm", ONE_LAUNCH)
def test_one_launch_erase_gate_extremes(b_value, hv, algorithm):
    run_case((65, 63, 1), 16, hv, initial=True, final=True, b_value=b_value, seed=6, algorithm=algorithm)


# Magnitudes far from 1 and far apart: q x 2^-20, and each value channel (v and the initial state's
# rows) scaled by its own power of two from 2^-24 to 2^24. Value channels evolve independently, so
# each is checked on its own, against its own norm: a pass that lost the small channels next to
# the large ones fails here (operands of a narrow range, such as the fp16 ones with one scale per
# value channel tried in 1c7749e, would if a scale were chosen wrongly: docs/performance.md).
# T1024 runs the 32-channel pass, T65+63+1 the 64-channel one, 1x40 the 128-channel one
# (src/launch.cu); and each on the recurrent path.
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("lengths", [(1024,), (65, 63, 1), (1,) * 40], ids=["T1024", "T65+63+1", "1x40"])
def test_far_magnitudes_per_value_channel(lengths, algorithm):
    inp = make_inputs(lengths, 16, 16, kind="model", initial_state=True, seed=12, device="cuda",
                      gen_device="cuda")
    channel = torch.pow(2.0, torch.arange(D, device="cuda").remainder(49).float() - 24.0)  # 2^-24 .. 2^24
    inp["q"] = (inp["q"].float() * 2.0 ** -20).to(torch.bfloat16)
    inp["v"] = (inp["v"].float() * channel).to(torch.bfloat16)
    inp["initial_state"] = inp["initial_state"] * channel[:, None]
    o, ht = call(inp, output_final_state=True, algorithm=algorithm)
    ref_o, ref_ht = reference(inp)
    for c in range(D):
        err_o = norm_rel_error(o[..., c], ref_o[..., c])
        err_s = norm_rel_error(ht[:, :, c, :], ref_ht[:, :, c, :])
        assert err_o <= OUT_TOL, f"value channel {c} (x {channel[c].item():g}): output error {err_o:.3e}"
        assert err_s <= STATE_TOL, f"value channel {c} (x {channel[c].item():g}): final state error {err_s:.3e}"


@pytest.mark.parametrize("row", CANONICAL_ROWS, ids=[r.name for r in CANONICAL_ROWS])
def test_canonical_rows(row):
    """The benchmark's exact inputs: accurate, and bitwise repeatable."""
    inp = row_inputs(row, device="cuda")
    first = as_tuple(call(inp, output_final_state=row.final_state))
    second = as_tuple(call(inp, output_final_state=row.final_state))
    for a, b in zip(first, second):
        assert bitwise_equal(a, b)
    check_against_reference(inp, first[0], first[1] if row.final_state else None)


# ---------------------------------------------------------------------------------------------
# API behaviour


def small_inputs(**kwargs):
    args = dict(kind="model", initial_state=True, seed=11, device="cuda", gen_device="cuda")
    args.update(kwargs)
    return make_inputs((100, 37, 64), 4, 8, **args)


def test_caller_buffers_used_in_place():
    inp = small_inputs()
    T, N = 201, 3
    out = torch.full((T, 8, D), float("nan"), dtype=torch.bfloat16, device="cuda")
    ht = torch.full((N, 8, D, D), float("nan"), dtype=torch.float32, device="cuda")
    o_ptr, h_ptr = out.data_ptr(), ht.data_ptr()
    o, h = call(inp, output=out, final_state=ht)
    assert o is out and h is ht and out.data_ptr() == o_ptr and ht.data_ptr() == h_ptr
    ref_o, ref_h = call(inp, output_final_state=True)
    assert bitwise_equal(out, ref_o) and bitwise_equal(ht, ref_h)

    # only one of the two given: the other is allocated
    out2 = torch.empty_like(out)
    o2, h2 = call(inp, output=out2, output_final_state=True)
    assert o2 is out2 and bitwise_equal(o2, ref_o) and bitwise_equal(h2, ref_h)
    ht3 = torch.empty_like(ht)
    o3, h3 = call(inp, final_state=ht3)  # a given final_state implies the tuple
    assert h3 is ht3 and bitwise_equal(o3, ref_o) and bitwise_equal(h3, ref_h)
    o4 = call(inp, output=torch.empty_like(out))
    assert isinstance(o4, torch.Tensor) and bitwise_equal(o4, ref_o)


def test_return_types():
    inp = small_inputs()
    o = call(inp)
    assert isinstance(o, torch.Tensor)
    assert o.shape == (201, 8, D) and o.dtype == torch.bfloat16 and o.device == inp["q"].device
    o, h = call(inp, output_final_state=True)
    assert h.shape == (3, 8, D, D) and h.dtype == torch.float32 and h.device == inp["q"].device


def test_cu_seqlens_int32_and_int64():
    inp32 = small_inputs(cu_dtype=torch.int32)
    inp64 = dict(inp32, cu_seqlens=inp32["cu_seqlens"].to(torch.int64))
    a = call(inp32, output_final_state=True)
    b = call(inp64, output_final_state=True)
    assert bitwise_equal(a[0], b[0]) and bitwise_equal(a[1], b[1])


def test_default_scale():
    inp = small_inputs()
    a = call(inp, output_final_state=True)
    b = call(inp, output_final_state=True, scale=D ** -0.5)
    assert bitwise_equal(a[0], b[0]) and bitwise_equal(a[1], b[1])
    c = call(inp, scale=0.5)
    ref_o, _ = gdn2.reference_tokenwise(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"],
                                        inp["w"], cu_seqlens=inp["cu_seqlens"],
                                        initial_state=inp["initial_state"], scale=0.5)
    assert norm_rel_error(c, ref_o) <= OUT_TOL


def test_validate_accepts_valid_input():
    inp = small_inputs()
    a = call(inp, output_final_state=True)
    b = call(inp, output_final_state=True, validate=True)
    assert bitwise_equal(a[0], b[0]) and bitwise_equal(a[1], b[1])


# kAuto's choices on the H200's 132 SMs (src/contract.cpp, choose_algorithm; None: no max_seqlen hint),
# each checked bitwise against the same call with that algorithm forced and against the others.
# Without the hint on several sequences the device may choose (plan_launch): there the expected path
# is the one for the true longest length (20 x 4 tokens: recurrent; 4 x 512: fused), where
# choose_algorithm alone, assuming T - N + 1, says fused or chunked (tests/cpp). On
# a GPU with another SM count the estimates move, so there the test only checks that auto equals
# one of the three.
AUTO = [((64,), 16, 16, None, "fused"), ((1,) * 32, 2, 4, None, "recurrent"),
        ((40, 1, 1), 4, 8, None, "fused"), ((64,), 16, 32, None, "fused"),
        ((65,), 16, 16, None, "fused"), ((96,), 16, 16, 96, "fused"),
        ((4,) * 20, 4, 8, None, "recurrent"), ((4,) * 20, 4, 8, 4, "recurrent"),
        ((1,) * 16, 4, 16, None, "fused"), ((100, 37, 64), 4, 8, None, "fused"),
        ((16,) * 8, 16, 16, 16, "fused"), ((16,), 16, 16, None, "recurrent"),
        ((257,), 16, 16, None, "chunked"), ((192,), 16, 16, None, "chunked"),
        ((128,), 16, 32, None, "fused"), ((96,), 16, 64, None, "fused"),
        ((512,) * 4, 16, 16, 512, "fused"), ((512,) * 4, 16, 16, None, "fused"),
        ((1024,) * 2, 16, 16, 1024, "fused"),
        # 1-token batches past one round: the persistent form over the recurrent path (kAuto's
        # kRecurrentRoundFloor; on an H100 512 x 1 of 16 heads took 296.5 us fused, 479.7 recurrent,
        # 32 x 1 27.3 and 32.3: bench/results/2026-12-06-persistent-quads/call5)
        ((1,) * 512, 16, 16, 1, "fused"), ((1,) * 128, 16, 64, 1, "fused"), ((1,) * 32, 16, 16, 1, "fused")]


@pytest.mark.parametrize("lengths,hq,hv,max_seqlen,expected", AUTO,
                         ids=[f"T{sum(a)}-N{len(a)}-hv{c}-max{d}" for a, _, c, d, _ in AUTO])
def test_auto_picks_by_size(lengths, hq, hv, max_seqlen, expected):
    inp = make_inputs(lengths, hq, hv, kind="model", initial_state=True, seed=13, device="cuda",
                      gen_device="cuda")
    auto = call(inp, output_final_state=True, max_seqlen=max_seqlen)
    forced = {a: call(inp, output_final_state=True, algorithm=a) for a in ALGORITHMS}
    if torch.cuda.get_device_properties(0).multi_processor_count != 132:
        expected = next(a for a in ALGORITHMS if bitwise_equal(auto[0], forced[a][0]))
    assert bitwise_equal(auto[0], forced[expected][0]) and bitwise_equal(auto[1], forced[expected][1])
    for a in ALGORITHMS:
        if a != expected:
            assert not bitwise_equal(auto[0], forced[a][0]), f"{a} and {expected} should round differently"
    check_against_reference(inp, auto[0], auto[1])


# kAuto's choice on the device (src/contract.cpp, plan_launch): without the hint, where the sizes
# leave two paths possible, both are launched and the kernels run the one that the longest sequence,
# read from cu_seqlens, picks. Each call must be bitwise what the named path gives (132 SMs: there
# it is also the host's pick given the true longest length as the hint), and not what the other
# launched path gives; its outputs start as NaN, so a call where neither path ran fails too. The
# chunked cases run the 128-channel pass, the 64-channel one on 4 sequences of 16 heads and the
# 32-channel one on 8 sequences of 4 heads. Every
# pair of paths that plan_launch forms is here both ways (tests/cpp: AutoChoice.DevicePlanOfTheGpuTestCases
# checks on the CPU that each case is still planned on the device), with the longer path's kernels
# launched behind the shorter one's, which zeroes the chunked path's work counter (kernel_params.h,
# DeviceChoice).
S3_LENGTHS = (63, 129, 257, 31, 512, 65, 128, 17, 333, 91, 211, 7, 401, 255, 144, 73, 289, 377, 19, 694)
S3_ONE_LONG = (3963,) + (7,) * 19  # the same T and N, one sequence past the choice's length
DEVICE_CHOICE = [(S3_LENGTHS, 16, 16, "fused", "chunked"), (S3_ONE_LONG, 16, 16, "chunked", "fused"),
                 ((3000,) + (16,) * 15, 16, 16, "chunked", "fused"), ((75,) * 40, 2, 2, "fused", "chunked"),
                 ((100, 37, 100), 4, 8, "fused", "chunked"), ((2000, 16, 16, 16), 16, 16, "chunked", "fused"),
                 ((14, 14, 14), 4, 8, "recurrent", "fused"), ((40, 1, 1), 4, 8, "fused", "recurrent"),
                 ((24,) * 8, 4, 4, "recurrent", "chunked"), ((185,) + (1,) * 7, 4, 4, "chunked", "recurrent")]


@pytest.mark.parametrize("lengths,hq,hv,expected,other", DEVICE_CHOICE,
                         ids=[f"T{sum(a)}-N{len(a)}-L{max(a)}-hv{c}" for a, _, c, _, _ in DEVICE_CHOICE])
def test_auto_chooses_on_the_device(lengths, hq, hv, expected, other):
    inp = make_inputs(lengths, hq, hv, kind="model", initial_state=True, seed=15, device="cuda",
                      gen_device="cuda")
    n = len(lengths)
    auto = (torch.full((sum(lengths), hv, D), float("nan"), dtype=torch.bfloat16, device="cuda"),
            torch.full((n, hv, D, D), float("nan"), dtype=torch.float32, device="cuda"))
    call(inp, output=auto[0], final_state=auto[1])
    hinted = call(inp, output_final_state=True, max_seqlen=max(lengths))
    forced = {a: call(inp, output_final_state=True, algorithm=a) for a in (expected, other)}
    if torch.cuda.get_device_properties(0).multi_processor_count == 132:
        assert bitwise_equal(auto[0], forced[expected][0]) and bitwise_equal(auto[1], forced[expected][1])
        assert bitwise_equal(hinted[0], auto[0]) and bitwise_equal(hinted[1], auto[1])
    else:  # other estimates: still exactly one of the paths
        assert any(bitwise_equal(auto[0], forced[a][0]) and bitwise_equal(auto[1], forced[a][1]) for a in forced)
    assert not bitwise_equal(forced[expected][0], forced[other][0]), "the two paths should round differently"
    check_against_reference(inp, auto[0], auto[1])


def test_graph_replays_choose_on_the_device():
    """One graph captured without the hint, replayed with cu_seqlens rewritten between replays (the
    same T and N): each replay is bitwise the path its lengths pick (S3's lengths: fused; one long
    sequence: chunked), with no host involvement."""
    inp = make_inputs(S3_LENGTHS, 16, 16, kind="model", initial_state=True, seed=16, device="cuda",
                      gen_device="cuda")
    cu_short = inp["cu_seqlens"].clone()
    cu_long = torch.tensor([0] + list(itertools.accumulate(S3_ONE_LONG)), dtype=cu_short.dtype, device="cuda")
    graph, captured = capture_graph(lambda: call(inp, output_final_state=True))
    for cu, path in ((cu_long, "chunked"), (cu_short, "fused"), (cu_long, "chunked")):
        inp["cu_seqlens"].copy_(cu)
        for t in captured:
            t.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        want = call(inp, output_final_state=True, algorithm=path)
        if torch.cuda.get_device_properties(0).multi_processor_count == 132:
            assert bitwise_equal(captured[0], want[0]) and bitwise_equal(captured[1], want[1]), path
        check_against_reference(inp, captured[0], captured[1])
    del graph


@pytest.mark.parametrize("lengths,path", [(S3_LENGTHS, "fused"), (S3_ONE_LONG, "chunked")], ids=["fused-runs", "chunked-runs"])
def test_calls_after_a_choice_on_the_device(lengths, path):
    """Under kAuto's choice on the device the kernels of the path that does not run leave at once,
    but for one CTA of each, which waits for the kernel before it (kernel_params.h, DeviceChoice):
    the call must still complete only after the path that runs. A second call, made at once on the
    same stream, reads the first one's output (as v) and final state (as initial_state); both are
    bitwise the same two calls with the path forced. The first path here runs for about 90 us
    (fused) with two kernels behind it, and the chunked one behind a fused kernel that leaves."""
    inp = make_inputs(lengths, 16, 16, kind="model", initial_state=True, seed=17, device="cuda",
                      gen_device="cuda")

    def chain(**kwargs):
        o1, h1 = call(inp, output_final_state=True, **kwargs)
        o2, h2 = gdn2.chunk_gdn2(inp["q"], inp["k"], o1, inp["g"], inp["b"], inp["w"],
                                 cu_seqlens=inp["cu_seqlens"], initial_state=h1,
                                 output_final_state=True, **kwargs)
        return o1, h1, o2, h2

    forced = chain(algorithm=path)
    for _ in range(3):
        chosen = chain()
        torch.cuda.synchronize()
        if torch.cuda.get_device_properties(0).multi_processor_count == 132:
            for name, x, want in zip(("o1", "h1", "o2", "h2"), chosen, forced):
                assert bitwise_equal(x, want), f"{name}: not the {path} path's bits"
    check_against_reference(inp, chosen[0], chosen[1])


def test_max_seqlen_hint_never_changes_results():
    """A hint below the true longest length sends a long sequence to the recurrent path: slower,
    still right (and bitwise what forcing that path gives)."""
    inp = make_inputs((200, 3, 5), 4, 8, kind="model", initial_state=True, seed=14, device="cuda",
                      gen_device="cuda")
    wrong_hint = call(inp, output_final_state=True, max_seqlen=2)
    forced = call(inp, output_final_state=True, algorithm="recurrent")
    assert bitwise_equal(wrong_hint[0], forced[0]) and bitwise_equal(wrong_hint[1], forced[1])
    check_against_reference(inp, wrong_hint[0], wrong_hint[1])
    with pytest.raises(ValueError, match="max_seqlen"):
        call(inp, max_seqlen=-3)


def test_algorithm_argument():
    inp = small_inputs()
    with pytest.raises(ValueError, match="algorithm"):
        call(inp, algorithm="fast")
    with pytest.raises(ValueError, match="algorithm"):
        call(inp, algorithm=2)
    args = [inp[name] for name in ("q", "k", "v", "g", "b", "w", "cu_seqlens", "initial_state")]
    with pytest.raises(ValueError, match="algorithm: expected kAuto"):  # the contract, through the op
        torch.ops.gdn2.forward.default(*args, D ** -0.5, True, False, 7)
    a = torch.ops.gdn2.forward.default(*args, D ** -0.5, True, False, 2)
    b = call(inp, output_final_state=True, algorithm="recurrent")
    assert bitwise_equal(a[0], b[0]) and bitwise_equal(a[1], b[1])


def test_workspace_follows_the_plan():
    """The op's workspace holds the chunk factors (Hq (T // 64 + N + 1) blocks of 131,584 bytes)
    only where the chunked path may run; a recurrent or fused call takes 1,280 bytes of flags."""
    lengths, hq, hv = (300, 200), 4, 8
    inp = make_inputs(lengths, hq, hv, kind="model", seed=61)
    args = [inp[name] for name in ("q", "k", "v", "g", "b", "w")]
    T, N = sum(lengths), len(lengths)
    out = torch.empty(T, hv, D, dtype=torch.bfloat16, device="cuda")
    factors = hq * (T // 64 + N + 1) * 131584
    grown = {}
    for algorithm in ("fused", "recurrent", "chunked"):
        gdn2.chunk_gdn2(*args, cu_seqlens=inp["cu_seqlens"], output=out, algorithm=algorithm)
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        gdn2.chunk_gdn2(*args, cu_seqlens=inp["cu_seqlens"], output=out, algorithm=algorithm)
        torch.cuda.synchronize()
        grown[algorithm] = torch.cuda.max_memory_allocated() - base
    assert grown["fused"] <= 2048 and grown["recurrent"] <= 2048, grown
    assert grown["chunked"] >= factors, grown


def test_state_carry_across_a_split():
    """Final state fed back as the initial state of the rest equals one call over everything."""
    lengths = (300, 1000, 77)
    cut = (100, 383, 40)  # tokens of each sequence in the first part
    inp = make_inputs(lengths, 4, 8, kind="model", initial_state=True, seed=12, device="cuda",
                      gen_device="cuda")
    starts = [0, 300, 1300]
    first_idx = torch.cat([torch.arange(s, s + c) for s, c in zip(starts, cut)]).cuda()
    rest_idx = torch.cat([torch.arange(s + c, s + n)
                          for s, c, n in zip(starts, cut, lengths)]).cuda()

    def part(idx, part_lengths, h0):
        sub = {name: inp[name].index_select(0, idx).contiguous() for name in "qkvgbw"}
        cu = [0]
        for n in part_lengths:
            cu.append(cu[-1] + n)
        sub["cu_seqlens"] = torch.tensor(cu, dtype=torch.int32, device="cuda")
        sub["initial_state"] = h0
        return sub

    first = part(first_idx, cut, inp["initial_state"])
    o1, h1 = call(first, output_final_state=True)
    rest = part(rest_idx, [n - c for n, c in zip(lengths, cut)], h1)
    o2, h2 = call(rest, output_final_state=True)

    o_all, h_all = call(inp, output_final_state=True)
    o_split = torch.empty_like(o_all)
    o_split[first_idx] = o1
    o_split[rest_idx] = o2

    ref_o, ref_h = reference(inp)
    assert norm_rel_error(o_split, ref_o) <= OUT_TOL
    assert norm_rel_error(h2, ref_h) <= STATE_TOL
    assert norm_rel_error(o_split, o_all.double()) <= OUT_TOL
    assert norm_rel_error(h2, h_all.double()) <= STATE_TOL


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_graph_of_chained_calls(algorithm):
    """Two calls in one CUDA graph, the second reading the first's output (as v) and final state
    (as initial_state): the replay is bitwise equal to the same calls made eagerly. (Where a call
    may start before the previous kernel in the stream has finished, it must still see its writes.)"""
    lengths = (200, 65) if algorithm == "chunked" else (64, 30)
    inp = make_inputs(lengths, 16, 16, kind="model", initial_state=True, seed=13, device="cuda",
                      gen_device="cuda")

    def chain():
        o1, h1 = call(inp, output_final_state=True, algorithm=algorithm)
        o2, h2 = gdn2.chunk_gdn2(inp["q"], inp["k"], o1, inp["g"], inp["b"], inp["w"],
                                 cu_seqlens=inp["cu_seqlens"], initial_state=h1,
                                 output_final_state=True, algorithm=algorithm)
        return o1, h1, o2, h2

    eager = chain()
    graph, captured = capture_graph(chain)
    for t in captured:
        t.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    for name, replayed, expected in zip(("o1", "h1", "o2", "h2"), captured, eager):
        assert bitwise_equal(replayed, expected), f"graph replay differs from the eager calls ({name})"
    del graph


def test_torch_compile_fullgraph():
    inp = small_inputs()

    def f(q, k, v, g, b, w, cu_seqlens, h0):
        o, h = gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu_seqlens, initial_state=h0,
                               output_final_state=True)
        return o.float() * 2.0, h

    def f_out(q, k, v, g, b, w, cu_seqlens, h0, out, ht):
        gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu_seqlens, initial_state=h0, output=out,
                        final_state=ht)
        return out

    args = [inp[name] for name in ("q", "k", "v", "g", "b", "w", "cu_seqlens", "initial_state")]
    eager_o, eager_h = f(*args)
    compiled_o, compiled_h = torch.compile(f, fullgraph=True)(*args)
    assert bitwise_equal(compiled_o, eager_o) and bitwise_equal(compiled_h, eager_h)

    for algorithm in ONE_LAUNCH:
        def f_one(q, k, v, g, b, w, cu_seqlens, h0, algorithm=algorithm):
            return gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu_seqlens, initial_state=h0,
                                   output_final_state=True, algorithm=algorithm)

        eager_r = f_one(*args)
        compiled_r = torch.compile(f_one, fullgraph=True)(*args)
        assert bitwise_equal(compiled_r[0], eager_r[0]) and bitwise_equal(compiled_r[1], eager_r[1])

    out = torch.full((201, 8, D), float("nan"), dtype=torch.bfloat16, device="cuda")
    ht = torch.full((3, 8, D, D), float("nan"), dtype=torch.float32, device="cuda")
    torch.compile(f_out, fullgraph=True)(*args, out, ht)
    assert bitwise_equal(out.float() * 2.0, eager_o) and bitwise_equal(ht, eager_h)


def test_torch_compile_with_a_new_hint_each_call():
    """max_seqlen is a SymInt: under torch.compile a new hint per call reaches the kernels as its
    value (the paths it picks give the eager call's bits) without a compilation per value
    (tests/python/test_ops_on_meta_tensors.py counts them)."""
    inp = small_inputs()
    args = [inp[name] for name in ("q", "k", "v", "g", "b", "w", "cu_seqlens", "initial_state")]

    def f(q, k, v, g, b, w, cu_seqlens, h0, hint):
        return gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu_seqlens, initial_state=h0,
                               output_final_state=True, max_seqlen=hint)

    compiled = torch.compile(f, fullgraph=True)
    for hint in (100, 4, 64, 150, 201, 9, 100):
        eager_o, eager_h = f(*args, hint)
        compiled_o, compiled_h = compiled(*args, hint)
        assert bitwise_equal(compiled_o, eager_o) and bitwise_equal(compiled_h, eager_h), f"hint {hint}"


def test_eager_binding_matches_the_op():
    """gdn2._eager (what eager calls use where it is built) against torch.ops: same results, same
    exception types."""
    if gdn2.ops._eager is None:
        pytest.skip("gdn2._eager is not built (no Python headers at build time)")
    inp = small_inputs()
    args = [inp[name] for name in ("q", "k", "v", "g", "b", "w", "cu_seqlens", "initial_state")]
    o1, h1 = torch.ops.gdn2.forward.default(*args, D ** -0.5, True, False)
    o2, h2 = gdn2.ops._eager.forward(*args, D ** -0.5, True, False)
    assert bitwise_equal(o1, o2) and bitwise_equal(h1, h2)
    out = torch.full_like(o1, float("nan"))
    ht = torch.full_like(h1, float("nan"))
    gdn2.ops._eager.forward_out(*args, out, ht, D ** -0.5, False)
    assert bitwise_equal(out, o1) and bitwise_equal(ht, h1)
    bad = list(args)
    bad[0] = bad[0].float()
    with pytest.raises(ValueError, match="q"):
        gdn2.ops._eager.forward(*bad, D ** -0.5, True, False)
    with pytest.raises(TypeError):
        gdn2.ops._eager.forward(*args[:-1], D ** -0.5, True, False)


def test_fake_tensors():
    """Shape propagation without running anything (FakeTensorMode reaches the fake implementation
    through the eager path too)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    inp = small_inputs()
    with FakeTensorMode() as mode:
        fake = {name: mode.from_tensor(t) for name, t in inp.items() if isinstance(t, torch.Tensor)}
        o, h = call(fake, output_final_state=True)
    assert o.shape == (201, 8, D) and o.dtype == torch.bfloat16
    assert h.shape == (3, 8, D, D) and h.dtype == torch.float32


def test_opcheck():
    """torch's own checks of a custom op: schema (mutation annotations), fake vs real, AOT."""
    inp = small_inputs()
    args = [inp[name] for name in ("q", "k", "v", "g", "b", "w", "cu_seqlens", "initial_state")]
    torch.library.opcheck(torch.ops.gdn2.forward.default, (*args, D ** -0.5, True, False))
    out = torch.empty((201, 8, D), dtype=torch.bfloat16, device="cuda")
    ht = torch.empty((3, 8, D, D), dtype=torch.float32, device="cuda")
    torch.library.opcheck(torch.ops.gdn2.forward_out.default, (*args, out, ht, D ** -0.5, False))


def test_current_stream_is_used():
    inp = small_inputs()
    expected = call(inp, output_final_state=True)
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        out = torch.full((201, 8, D), float("nan"), dtype=torch.bfloat16, device="cuda")
        o, h = call(inp, output=out, output_final_state=True)
    stream.synchronize()
    assert bitwise_equal(o, expected[0]) and bitwise_equal(h, expected[1])
