"""Bad input: each contract violation raises an error naming the argument, and nothing is written.

Metadata violations raise ValueError (RuntimeError is also accepted where the problem is a
device); values that need a look at device memory are checked with validate=True. The exact
messages live in src/contract.cpp: only the argument's name is asserted here.
"""

import re

import pytest

from conftest import require_gpu_gdn2

torch, gdn2 = require_gpu_gdn2()

from gdn2.testing import make_inputs  # noqa: E402

D = 128
LENGTHS = (65, 65)
T, N, HQ, HV = 130, 2, 2, 4
BF16, F32 = torch.bfloat16, torch.float32
DEVICE_ERRORS = (ValueError, RuntimeError)


def base_args():
    """A valid call: keyword arguments of gdn2.chunk_gdn2, with every buffer given."""
    inp = make_inputs(LENGTHS, HQ, HV, kind="model", initial_state=True, seed=21, device="cuda",
                      cu_dtype=torch.int32, gen_device="cuda")
    inp["output"] = torch.full((T, HV, D), float("nan"), dtype=BF16, device="cuda")
    inp["final_state"] = torch.full((N, HV, D, D), float("nan"), dtype=F32, device="cuda")
    return inp


def non_contiguous(t):
    """Same shape and values, transposed strides."""
    return t.transpose(0, 1).contiguous().transpose(0, 1)


def strided(t):
    """Same shape, every other element of a buffer twice as long along dim 0."""
    big = torch.empty((2 * t.shape[0],) + tuple(t.shape[1:]), dtype=t.dtype, device=t.device)
    view = big[::2]
    view.copy_(t)
    return view


def misaligned(t):
    """Same shape and values, the data pointer one element past an aligned address."""
    flat = torch.empty(t.numel() + 1, dtype=t.dtype, device=t.device)
    view = flat[1:].view(t.shape)
    view.copy_(t)
    return view


def resized(t, dim, size):
    shape = list(t.shape)
    shape[dim] = size
    return torch.zeros(shape, dtype=t.dtype, device=t.device)


def set_value(name, index, value):
    def change(a):
        a[name] = a[name].clone()
        a[name][index] = value
    return change


def set_(name, fn):
    def change(a):
        a[name] = fn(a[name])
    return change


def set_cu(values, dtype=torch.int32):
    def change(a):
        a["cu_seqlens"] = torch.tensor(values, dtype=dtype, device="cuda")
    return change


def no_state(change):
    """For value checks: drop both states so that cu_seqlens may change N."""
    def wrapped(a):
        a["initial_state"] = None
        a["final_state"] = None
        change(a)
    return wrapped


def overlap_output_with_v(a):
    a["output"] = a["v"]  # same shape and dtype as the output


def overlap_output_with_q(a):
    # one bf16 buffer holding q and, shifted by half of q, the output
    nq, no = a["q"].numel(), T * HV * D
    buf = torch.zeros(nq // 2 + max(nq // 2, no) + no, dtype=BF16, device="cuda")
    q = buf[:nq].view(a["q"].shape)
    q.copy_(a["q"])
    a["q"] = q
    a["output"] = buf[nq // 2:nq // 2 + no].view(T, HV, D)


def overlap_final_state_with_output(a):
    no_bytes = T * HV * D * 2
    fs_bytes = N * HV * D * D * 4
    buf = torch.zeros(no_bytes + fs_bytes, dtype=torch.uint8, device="cuda")
    a["output"] = buf[:no_bytes].view(BF16).view(T, HV, D)
    a["final_state"] = buf[no_bytes - 4096:no_bytes - 4096 + fs_bytes].view(F32).view(N, HV, D, D)


def final_state_overlaps_initial_state(a):
    # One slot apart in one buffer: not the same view (which is an in-place update, allowed:
    # tests/python/test_state_pool_gpu.py), so refused.
    buf = torch.zeros((N + 1, HV, D, D), dtype=F32, device="cuda")
    buf[:N] = a["initial_state"]
    a["initial_state"], a["final_state"] = buf[:N], buf[1:]


def indices_int64(a):
    a["initial_state_indices"] = torch.arange(N, dtype=torch.int64, device="cuda")


def indices_too_few(a):
    a["final_state_indices"] = torch.arange(N - 1, dtype=torch.int32, device="cuda")


def indices_without_pool(a):
    a["initial_state"] = None
    a["initial_state_indices"] = torch.arange(N, dtype=torch.int32, device="cuda")


def k_on_other_gpu(a):
    a["k"] = a["k"].to("cuda:1")


def all_on_cpu(a):
    for name in ("q", "k", "v", "g", "b", "w", "cu_seqlens", "initial_state", "output",
                 "final_state"):
        a[name] = a[name].cpu()


def small_heads(dim_value):
    """K = dim_value for every key-side tensor."""
    def change(a):
        for name in ("q", "k", "g", "b"):
            a[name] = resized(a[name], 2, dim_value)
    return change


def value_side(dim, size):
    """Dimension `dim` = size for v, w, output and the states (1: Hv, 2: V in all of them)."""
    def change(a):
        for name in ("v", "w", "output", "initial_state", "final_state"):
            a[name] = resized(a[name], dim, size)
    return change


def small_values(dim_value):
    return value_side(2, dim_value)


def value_heads(hv):
    return value_side(1, hv)


CASES = [
    # (id, change, name expected in the message, exception types, validate)
    # wrong dtype
    ("q-float32", set_("q", lambda t: t.float()), "q", ValueError, False),
    ("q-float16", set_("q", lambda t: t.half()), "q", ValueError, False),
    ("k-float32", set_("k", lambda t: t.float()), "k", ValueError, False),
    ("v-float32", set_("v", lambda t: t.float()), "v", ValueError, False),
    ("g-bfloat16", set_("g", lambda t: t.bfloat16()), "g", ValueError, False),
    ("b-float32", set_("b", lambda t: t.float()), "b", ValueError, False),
    ("w-float32", set_("w", lambda t: t.float()), "w", ValueError, False),
    ("cu_seqlens-float32", set_("cu_seqlens", lambda t: t.float()), "cu_seqlens", ValueError,
     False),
    ("cu_seqlens-int16", set_("cu_seqlens", lambda t: t.short()), "cu_seqlens", ValueError, False),
    ("initial_state-float16", set_("initial_state", lambda t: t.half()), "initial_state",
     ValueError, False),
    ("output-float32", set_("output", lambda t: t.float()), "output", ValueError, False),
    ("final_state-float64", set_("final_state", lambda t: t.double()), "final_state",
     ValueError, False),
    # wrong rank
    ("q-4d", set_("q", lambda t: t[None]), "q", ValueError, False),
    ("k-2d", set_("k", lambda t: t.reshape(T, -1)), "k", ValueError, False),
    ("v-2d", set_("v", lambda t: t.reshape(T, -1)), "v", ValueError, False),
    ("g-4d", set_("g", lambda t: t[None]), "g", ValueError, False),
    ("b-2d", set_("b", lambda t: t.reshape(T, -1)), "b", ValueError, False),
    ("w-4d", set_("w", lambda t: t[None]), "w", ValueError, False),
    ("cu_seqlens-2d", set_("cu_seqlens", lambda t: t[None]), "cu_seqlens", ValueError, False),
    ("initial_state-3d", set_("initial_state", lambda t: t[0]), "initial_state", ValueError, False),
    ("output-2d", set_("output", lambda t: t.reshape(T, -1)), "output", ValueError, False),
    ("final_state-5d", set_("final_state", lambda t: t[None]), "final_state", ValueError, False),
    # wrong shape
    ("k-tokens", set_("k", lambda t: t[:-1].contiguous()), "k", ValueError, False),
    ("g-heads", set_("g", lambda t: resized(t, 1, HQ + 1)), "g", ValueError, False),
    ("b-headdim", set_("b", lambda t: resized(t, 2, 64)), "b", ValueError, False),
    ("v-tokens", set_("v", lambda t: t[:-1].contiguous()), "v", ValueError, False),
    ("w-heads", set_("w", lambda t: resized(t, 1, HV * 2)), "w", ValueError, False),
    ("output-tokens", set_("output", lambda t: resized(t, 0, T + 1)), "output", ValueError, False),
    ("output-heads", set_("output", lambda t: resized(t, 1, HV // 2)), "output", ValueError, False),
    ("initial_state-N", set_("initial_state", lambda t: resized(t, 0, N + 1)), "initial_state",
     ValueError, False),
    ("initial_state-heads", set_("initial_state", lambda t: resized(t, 1, HV + 4)),
     "initial_state", ValueError, False),
    ("final_state-N", set_("final_state", lambda t: resized(t, 0, N - 1)), "final_state",
     ValueError, False),
    ("final_state-heads", set_("final_state", lambda t: resized(t, 1, HV * 2)), "final_state",
     ValueError, False),
    # heads and head sizes
    ("hv-not-multiple-of-hq", value_heads(3), "v", ValueError, False),
    ("K-64", small_heads(64), "q", ValueError, False),
    ("V-64", small_values(64), "v", ValueError, False),
    # devices
    ("q-on-cpu", set_("q", lambda t: t.cpu()), "q", DEVICE_ERRORS, False),
    ("g-on-cpu", set_("g", lambda t: t.cpu()), "g", DEVICE_ERRORS, False),
    ("cu_seqlens-on-cpu", set_("cu_seqlens", lambda t: t.cpu()), "cu_seqlens", DEVICE_ERRORS,
     False),
    ("initial_state-on-cpu", set_("initial_state", lambda t: t.cpu()), "initial_state",
     DEVICE_ERRORS, False),
    ("output-on-cpu", set_("output", lambda t: t.cpu()), "output", DEVICE_ERRORS, False),
    ("all-on-cpu", all_on_cpu, "q", DEVICE_ERRORS, False),
    ("k-on-other-gpu", k_on_other_gpu, "k", DEVICE_ERRORS, False),
    # layout
    ("q-transposed", set_("q", non_contiguous), "q", ValueError, False),
    ("b-transposed", set_("b", non_contiguous), "b", ValueError, False),
    ("v-strided", set_("v", strided), "v", ValueError, False),
    ("g-strided", set_("g", strided), "g", ValueError, False),
    ("cu_seqlens-strided", set_("cu_seqlens", strided), "cu_seqlens", ValueError, False),
    ("initial_state-transposed", set_("initial_state", lambda t: t.transpose(2, 3)),
     "initial_state", ValueError, False),
    ("output-strided", set_("output", strided), "output", ValueError, False),
    ("final_state-transposed", set_("final_state", lambda t: t.transpose(2, 3)), "final_state",
     ValueError, False),
    ("q-misaligned", set_("q", misaligned), "q", ValueError, False),
    ("w-misaligned", set_("w", misaligned), "w", ValueError, False),
    ("initial_state-misaligned", set_("initial_state", misaligned), "initial_state", ValueError,
     False),
    ("output-misaligned", set_("output", misaligned), "output", ValueError, False),
    # aliasing
    ("output-is-v", overlap_output_with_v, "output", ValueError, False),
    ("output-overlaps-q", overlap_output_with_q, "output", ValueError, False),
    ("final_state-overlaps-output", overlap_final_state_with_output, "final_state", ValueError,
     False),
    ("final_state-overlaps-initial_state", final_state_overlaps_initial_state, "final_state", ValueError,
     False),
    # state indices
    ("initial_state_indices-int64", indices_int64, "initial_state_indices", ValueError, False),
    ("final_state_indices-N-1", indices_too_few, "final_state_indices", ValueError, False),
    ("initial_state_indices-without-pool", indices_without_pool, "initial_state_indices", ValueError, False),
    # cu_seqlens length
    ("cu_seqlens-length-1", set_cu([0]), "cu_seqlens", ValueError, False),
    ("cu_seqlens-N-above-T", no_state(set_cu(list(range(T + 2)))), "cu_seqlens", ValueError,
     False),
    ("cu_seqlens-N-not-state-N", set_cu([0, 40, 65, 130]), "initial_state", ValueError, False),
    # scale
    ("scale-nan", lambda a: a.update(scale=float("nan")), "scale", ValueError, False),
    ("scale-inf", lambda a: a.update(scale=float("inf")), "scale", ValueError, False),
    ("scale-minus-inf", lambda a: a.update(scale=float("-inf")), "scale", ValueError, False),
    # values (validate=True)
    ("cu_seqlens-not-monotone", no_state(set_cu([0, 80, 60, 130])), "cu_seqlens", ValueError,
     True),
    ("cu_seqlens-empty-sequence", no_state(set_cu([0, 65, 65, 130])), "cu_seqlens", ValueError,
     True),
    ("cu_seqlens-end-not-T", set_cu([0, 65, 129]), "cu_seqlens", ValueError, True),
    ("cu_seqlens-end-above-T", set_cu([0, 65, 131]), "cu_seqlens", ValueError, True),
    ("cu_seqlens-start-not-0", set_cu([1, 65, 130]), "cu_seqlens", ValueError, True),
    ("cu_seqlens-int64-end-not-T", set_cu([0, 65, 129], torch.int64), "cu_seqlens", ValueError,
     True),
    ("g-positive", set_value("g", (5, 1, 3), 0.5), "g", ValueError, True),
    ("g-nan", set_value("g", (129, 0, 127), float("nan")), "g", ValueError, True),
    ("g-minus-inf", set_value("g", (0, 0, 0), float("-inf")), "g", ValueError, True),
    ("b-inf", set_value("b", (64, 1, 5), float("inf")), "b", ValueError, True),
    ("b-nan", set_value("b", (3, 0, 0), float("nan")), "b", ValueError, True),
    ("w-inf", set_value("w", (100, 3, 127), float("-inf")), "w", ValueError, True),
    ("w-nan", set_value("w", (0, 2, 64), float("nan")), "w", ValueError, True),
]


POSITIONAL = ("q", "k", "v", "g", "b", "w")


def run(args, validate):
    kwargs = {key: value for key, value in args.items() if key not in POSITIONAL}
    return gdn2.chunk_gdn2(*(args[key] for key in POSITIONAL), validate=validate, **kwargs)


def bitwise_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
        return False
    return torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


def names(message, name):
    """`name` appears in `message` as a word of its own ("q" does not match "cu_seqlens")."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def test_case_count():
    assert len(CASES) >= 40


def test_base_arguments_are_valid():
    """Every case below fails for its own reason: the unchanged arguments pass, validated too."""
    args = base_args()
    o, h = run(args, validate=True)
    torch.cuda.synchronize()
    assert o is args["output"] and h is args["final_state"]
    assert not torch.isnan(o).any() and not torch.isnan(h).any()


@pytest.mark.parametrize("change,name,errors,validate", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_is_rejected(change, name, errors, validate):
    if change is k_on_other_gpu and torch.cuda.device_count() < 2:
        pytest.skip("needs a second GPU")
    args = base_args()
    change(args)
    tensors = {key: t for key, t in args.items() if isinstance(t, torch.Tensor)}
    before = {key: t.clone() for key, t in tensors.items()}
    torch.cuda.synchronize()
    with pytest.raises(errors) as info:
        run(args, validate)
    message = str(info.value)
    assert names(message, name), f"the message does not name {name!r}: {message!r}"
    torch.cuda.synchronize()
    # nothing written: the NaN-poisoned output and final_state and every input bitwise unchanged
    for key, old in before.items():
        assert bitwise_equal(tensors[key], old), f"{key} changed although the call was rejected"


# Out-of-contract values without validate=True: the call must not hang, fail, or write outside
# output and final_state, and it does what README.md documents:
#  - "all-nan": inconsistent cu_seqlens -> every output row and every final state is NaN;
#  - "finite": g > 0 acts as 0, g = NaN or -inf as -inf (the channel is wiped): all finite;
#  - ("confined", seq, value heads): a non-finite b or w reaches only that sequence's rows of the
#    value heads that read it; every other row is finite.
HARMLESS = [
    ("cu_seqlens-not-monotone", no_state(set_cu([0, 80, 60, 130])), "all-nan"),
    ("cu_seqlens-empty-sequence", no_state(set_cu([0, 65, 65, 130])), "all-nan"),
    ("cu_seqlens-end-above-T", set_cu([0, 65, 4000]), "all-nan"),
    ("cu_seqlens-end-below-T", set_cu([0, 65, 100]), "all-nan"),
    ("cu_seqlens-start-not-0", set_cu([7, 65, 130]), "all-nan"),
    ("cu_seqlens-negative", set_cu([-50, -10, 130]), "all-nan"),
    ("cu_seqlens-huge-int64", set_cu([0, 2**40, 130], torch.int64), "all-nan"),
    ("g-positive", set_value("g", (5, 1, 3), 50.0), "finite"),
    ("g-nan", set_value("g", (129, 0, 127), float("nan")), "finite"),
    ("g-minus-inf", set_value("g", (0, 0, 0), float("-inf")), "finite"),
    ("b-inf", set_value("b", (64, 1, 5), float("inf")), ("confined", 0, (2, 3))),
    ("w-nan", set_value("w", (0, 2, 64), float("nan")), ("confined", 0, (2,))),
]
PAD = 4096
SENTINEL = {BF16: -1536.0, F32: -12345.5}


def guarded(shape, dtype):
    n = 1
    for s in shape:
        n *= s
    buf = torch.full((PAD + n + PAD,), SENTINEL[dtype], dtype=dtype, device="cuda")
    return buf, buf[PAD:PAD + n].view(shape)


@pytest.mark.timeout(300, method="thread")
@pytest.mark.parametrize("change,expect", [c[1:] for c in HARMLESS], ids=[c[0] for c in HARMLESS])
def test_out_of_contract_values_are_harmless(change, expect):
    args = base_args()
    change(args)
    out_buf, args["output"] = guarded((T, HV, D), BF16)
    state_buf = None
    if args["final_state"] is not None:
        state_buf, args["final_state"] = guarded(tuple(args["final_state"].shape), F32)
    inputs = {key: t for key, t in args.items()
              if isinstance(t, torch.Tensor) and key not in ("output", "final_state")}
    before = {key: t.clone() for key, t in inputs.items()}
    run(args, validate=False)
    torch.cuda.synchronize()  # no hang, no CUDA error
    for buf in (out_buf, state_buf):
        if buf is None:
            continue
        margin = torch.full((PAD,), SENTINEL[buf.dtype], dtype=buf.dtype, device="cuda")
        assert bitwise_equal(buf[:PAD], margin) and bitwise_equal(buf[-PAD:], margin), \
            "write outside the output buffers"
    for key, old in before.items():
        assert bitwise_equal(inputs[key], old), f"input {key} was modified"
    out, state = args["output"], args["final_state"]
    if expect == "all-nan":
        assert bool(torch.isnan(out).all()), "inconsistent cu_seqlens must give NaN in every output row"
        if state is not None:
            assert bool(torch.isnan(state).all()), "inconsistent cu_seqlens must give NaN final states"
    elif expect == "finite":
        assert bool(torch.isfinite(out).all())
        if state is not None:
            assert bool(torch.isfinite(state).all())
    else:
        _, seq, heads = expect
        others = [h for h in range(HV) if h not in heads]
        bos, eos = (0, LENGTHS[0]) if seq == 0 else (LENGTHS[0], T)
        rest = torch.cat([out[:bos], out[eos:]]) if bos or eos < T else out[:0]
        assert bool(torch.isfinite(rest).all()), "a non-finite gate leaked into another sequence"
        assert bool(torch.isfinite(out[:, others]).all()), "a non-finite gate leaked into another head"
        assert not bool(torch.isfinite(out[bos:eos, list(heads)]).all()), "the non-finite gate had no effect"


# One long sequence with 16 key and value heads: the 32-channel state pass runs alongside phase 1
# there (src/launch.cu: at least 4 rounds of phase-1 items on the SMs the pass leaves, true from
# 960 tokens on 114 to 132 SMs) and checks cu_seqlens itself instead of reading phase 1's fault
# words. An inconsistent last offset must still give NaN everywhere and never leave the pass
# waiting for a factor block that phase 1 does not compute.
def run_expecting_nan_in_place(inp, out_buf, state_buf):
    """Runs with an inconsistent cu_seqlens: no hang, no CUDA error, NaN in every output row and
    final state, and the guard margins around both buffers untouched."""
    run(inp, validate=False)
    torch.cuda.synchronize()
    for buf in (out_buf, state_buf):
        margin = torch.full((PAD,), SENTINEL[buf.dtype], dtype=buf.dtype, device="cuda")
        assert bitwise_equal(buf[:PAD], margin) and bitwise_equal(buf[-PAD:], margin), \
            "write outside the output buffers"
    assert bool(torch.isnan(inp["output"]).all()), "inconsistent cu_seqlens must give NaN in every output row"
    assert bool(torch.isnan(inp["final_state"]).all()), "inconsistent cu_seqlens must give NaN final states"


LONG_T = 4288


@pytest.mark.timeout(300, method="thread")
@pytest.mark.parametrize("last", [LONG_T - 100, LONG_T + 64, 2**40], ids=["below-T", "above-T", "huge"])
def test_inconsistent_cu_seqlens_long_sequence(last):
    inp = make_inputs((LONG_T,), 16, 16, kind="model", initial_state=True, seed=22, device="cuda",
                      cu_dtype=torch.int64, gen_device="cuda")
    inp["cu_seqlens"] = torch.tensor([0, last], dtype=torch.int64, device="cuda")
    out_buf, inp["output"] = guarded((LONG_T, 16, D), BF16)
    state_buf, inp["final_state"] = guarded((1, 16, D, D), F32)
    run_expecting_nan_in_place(inp, out_buf, state_buf)


# Many sequences of mixed lengths with 16 value heads: past one wave of the 128-channel state pass,
# phase 1 orders the sequences longest first and the pass CTAs start in that order (src/launch.cu).
# The order is a permutation of the sequences whatever cu_seqlens holds, so an inconsistent
# cu_seqlens must still give NaN in every output row and state, with nothing written outside them.
# Forced to the fused path, the same 480 items take its persistent 128-channel form, whose CTAs
# fill their items with NaN in turn.
MANY_LENGTHS = (200, 7, 150, 64, 1, 90) * 5  # 30 sequences x 16 heads: 480 CTAs
MANY_T = sum(MANY_LENGTHS)
MANY_CHANGES = {
    "not-monotone": lambda cu: cu.__setitem__(5, int(cu[7])),
    "end-above-T": lambda cu: cu.__setitem__(-1, MANY_T + 64),
    "start-not-0": lambda cu: cu.__setitem__(0, 3),
}


@pytest.mark.timeout(300, method="thread")
@pytest.mark.parametrize("algorithm", ["auto", "fused"])  # fused: the persistent 128-channel form
@pytest.mark.parametrize("change", list(MANY_CHANGES.values()), ids=list(MANY_CHANGES))
def test_inconsistent_cu_seqlens_many_sequences(change, algorithm):
    n = len(MANY_LENGTHS)
    inp = make_inputs(MANY_LENGTHS, 16, 16, kind="model", initial_state=True, seed=23, device="cuda",
                      cu_dtype=torch.int32, gen_device="cuda")
    change(inp["cu_seqlens"])
    inp["algorithm"] = algorithm
    out_buf, inp["output"] = guarded((MANY_T, 16, D), BF16)
    state_buf, inp["final_state"] = guarded((n, 16, D, D), F32)
    run_expecting_nan_in_place(inp, out_buf, state_buf)
