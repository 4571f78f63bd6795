"""GPU tests of state pools: initial_state_indices / final_state_indices and the in-place update.

Engines keep each sequence's state in a slot of a pool and, without indices, gather the states
before the call and scatter them after it. With indices the kernels read and write the slots
themselves. Only the addressing differs from a plain call, so every case here must be bitwise
equal to the plain call on the gathered states, on every path and form of the kernels:
  * the chunked path's three state passes (32 value channels per CTA, alone and beside phase 1;
    64; 128, longest first);
  * the recurrent path;
  * the fused path's pair form, plain 128-channel form (on persistent CTAs within one round and
    past it; one CTA per item past 4,096 sequences) and GVA pair (persistent; one cluster per item
    past 256 sequences).
Each case also checks that no slot other than those written changes (the padding between slots of
a strided pool included), that negative indices mean "no state", that an index past the pool
touches no state and makes only its own sequence's rows NaN, and that validate=True names it.
bf16 pools and states: bit for bit the fp32 call on the widened states, the final states rounded
once. validate=True's slot rules: a final slot written twice, or in place read by another sequence.
"""

import pytest

from conftest import OUT_TOL, STATE_TOL, require_gpu_gdn2

torch, gdn2 = require_gpu_gdn2()

from gdn2.testing import capture_graph, make_inputs, norm_rel_error, random_lengths  # noqa: E402

D = 128

# (lengths, hq, hv, algorithm): which kernel each takes on 132 SMs (kernel_params.h, pass_width,
# fused_slices, fused_gva_pair; test_forward_gpu.py uses the same shapes for the same forms).
CASES = {
    "chunked-v32": ((300, 41, 200), 2, 4, "chunked"),
    "chunked-v32-overlapped": ((1000,), 8, 16, "chunked"),
    "chunked-v64": (random_lengths(12, 1, 200, seed=21), 2, 4, "chunked"),
    "chunked-v128": (random_lengths(40, 1, 200, seed=22), 2, 4, "chunked"),
    "recurrent": (random_lengths(20, 1, 40, seed=23), 2, 4, "recurrent"),
    "fused-pair": ((300, 129, 17, 1), 4, 8, "fused"),
    "fused-v128": ((8, 300, 40, 1), 16, 32, "fused"),             # fused_persistent, one round
    "fused-v128-persistent": ((8,) * 40, 16, 32, "fused"),         # fused_persistent, several rounds
    "fused-gva-pair": ((300, 129, 40, 17, 1, 300), 16, 32, "fused"),
    "fused-v128-one-item": ((1, 2) * 2049, 1, 1, "fused"),         # past 4,096 sequences: a CTA per item
    "fused-gva-pair-one-item": (random_lengths(257, 128, 140, seed=24), 1, 2, "fused"),  # past 256: a cluster each
}


def bitwise_equal(a, b):
    return a.shape == b.shape and torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


def pool(slots, hv, gap, seed):
    """A pool of `slots` states [slots, hv, D, D], `gap` floats of padding after each slot (a view
    into one buffer, as an engine's pages), filled with random values, padding included."""
    per_slot = hv * D * D + gap
    gen = torch.Generator(device="cuda").manual_seed(seed)
    buf = torch.randn(slots * per_slot, generator=gen, device="cuda") * 0.1
    return buf, buf.as_strided((slots, hv, D, D), (per_slot, D * D, D, 1))


def indices(n, slots, seed):
    """n distinct slots of `slots`, in random order, as int32 on the GPU."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randperm(slots, generator=gen)[:n].to(torch.int32).cuda()


def gathered(state_pool, idx):
    """The plain call's [N, Hv, V, K] states: slot idx[n], zeros where idx[n] < 0."""
    safe = idx.clamp(min=0).long()
    return torch.where((idx >= 0).view(-1, 1, 1, 1), state_pool[safe], torch.zeros_like(state_pool[safe])).contiguous()


def call(inp, **kwargs):
    return gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
                           cu_seqlens=inp["cu_seqlens"], **kwargs)


def setup_case(name, gap, seed):
    lengths, hq, hv, algorithm = CASES[name]
    n = len(lengths)
    inp = make_inputs(lengths, hq, hv, kind="model", decay=("mixed", -50.0), seed=seed, device="cuda",
                      cu_dtype=torch.int32, gen_device="cuda")
    slots = 2 * n + 3
    buf, states = pool(slots, hv, gap, seed)
    idx = indices(n, slots, seed)
    return inp, algorithm, buf, states, idx, slots


@pytest.mark.parametrize("gap", [0, 256], ids=["dense", "strided"])
@pytest.mark.parametrize("name", list(CASES))
def test_two_pools_match_the_gathered_call(name, gap):
    """Separate pools for initial and final states, some sequences without an initial state or
    without a final slot (negative indices)."""
    inp, algorithm, buf0, h0_pool, idx0, slots = setup_case(name, gap, seed=31)
    n = idx0.numel()
    idx0[0] = -1  # a new sequence: starts from zeros
    buf1, ht_pool = pool(slots, h0_pool.shape[1], gap, seed=32)
    idx1 = indices(n, slots, seed=33)
    idx1[-1] = -5  # its final state is not wanted
    before0, before1 = buf0.clone(), buf1.clone()

    o, _ = call(inp, initial_state=h0_pool, initial_state_indices=idx0, final_state=ht_pool,
                final_state_indices=idx1, algorithm=algorithm)
    ref_o, ref_ht = call(inp, initial_state=gathered(h0_pool, idx0), output_final_state=True, algorithm=algorithm)
    torch.cuda.synchronize()
    assert bitwise_equal(o, ref_o), "output differs from the call on gathered states"
    assert bitwise_equal(buf0, before0), "the initial-state pool was written"
    expected = before1.clone()
    exp_pool = expected.as_strided(ht_pool.shape, ht_pool.stride())
    for s in range(n):
        if idx1[s] >= 0:
            exp_pool[int(idx1[s])] = ref_ht[s]
    assert bitwise_equal(buf1, expected), "final-state pool differs (written slots, or others touched)"


@pytest.mark.parametrize("gap", [0, 256], ids=["dense", "strided"])
@pytest.mark.parametrize("name", list(CASES))
def test_in_place_matches_gather_and_scatter(name, gap):
    """One pool, updated in place, as an engine runs it: new sequences start from zeros
    (initial index -1), every sequence's final state goes back to its slot."""
    inp, algorithm, buf, states, idx, _ = setup_case(name, gap, seed=41)
    h0_idx = idx.clone()
    h0_idx[::3] = -1
    before = buf.clone()
    h0 = gathered(states, h0_idx)

    o, ht = call(inp, initial_state=states, initial_state_indices=h0_idx, final_state=states,
                 final_state_indices=idx, algorithm=algorithm)
    assert ht is states
    ref_o, ref_ht = call(inp, initial_state=h0, output_final_state=True, algorithm=algorithm)
    torch.cuda.synchronize()
    assert bitwise_equal(o, ref_o), "output differs from the call on gathered states"
    expected = before.clone()
    exp_pool = expected.as_strided(states.shape, states.stride())
    exp_pool[idx.long()] = ref_ht
    assert bitwise_equal(buf, expected), "pool differs from gather, call, scatter"


def test_in_place_against_the_reference():
    """The in-place result against the fp64 tokenwise reference, not only against our own call."""
    inp, algorithm, buf, states, idx, _ = setup_case("fused-pair", 0, seed=51)
    h0 = gathered(states, idx)
    o, _ = call(inp, initial_state=states, initial_state_indices=idx, final_state=states,
                final_state_indices=idx, algorithm="auto")
    ref_o, ref_ht = gdn2.reference_tokenwise(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
                                             cu_seqlens=inp["cu_seqlens"], initial_state=h0)
    assert norm_rel_error(o, ref_o) <= OUT_TOL
    assert norm_rel_error(states[idx.long()], ref_ht) <= STATE_TOL


def test_in_place_without_indices():
    """final_state = initial_state (one state per sequence), updated in place."""
    inp = make_inputs((300, 41, 200), 2, 4, kind="model", initial_state=True, seed=61, device="cuda",
                      gen_device="cuda")
    h = inp.pop("initial_state")
    ref_o, ref_ht = call(inp, initial_state=h.clone(), output_final_state=True, algorithm="chunked")
    o, ht = call(inp, initial_state=h, final_state=h, algorithm="chunked")
    assert ht is h
    assert bitwise_equal(o, ref_o) and bitwise_equal(h, ref_ht)


def test_allocating_call_with_initial_indices():
    """initial_state_indices with the allocating call: final_state comes back as [N, Hv, V, K]."""
    inp, algorithm, buf, states, idx, _ = setup_case("recurrent", 0, seed=71)
    before = buf.clone()
    o, ht = call(inp, initial_state=states, initial_state_indices=idx, output_final_state=True, algorithm=algorithm)
    ref_o, ref_ht = call(inp, initial_state=gathered(states, idx), output_final_state=True, algorithm=algorithm)
    assert bitwise_equal(o, ref_o) and bitwise_equal(ht, ref_ht)
    assert bitwise_equal(buf, before)


@pytest.mark.parametrize("which", ["initial", "final"])
@pytest.mark.parametrize("name", ["chunked-v32", "chunked-v32-overlapped", "chunked-v128", "recurrent",
                                  "fused-pair", "fused-v128", "fused-v128-persistent", "fused-gva-pair"])
def test_index_past_the_pool(name, which):
    """One sequence's index past its pool: that sequence's output rows are NaN and no state is
    read or written for it; every other sequence is as in a call without it."""
    inp, algorithm, buf, states, idx, slots = setup_case(name, 0, seed=81)
    lengths = CASES[name][0]
    bad = len(lengths) // 2
    cu = inp["cu_seqlens"].tolist()
    good_idx = idx.clone()
    idx[bad] = slots + 7
    before = buf.clone()
    h0_idx = idx if which == "initial" else good_idx
    ht_idx = idx if which == "final" else good_idx
    o, _ = call(inp, initial_state=states, initial_state_indices=h0_idx, final_state=states,
                final_state_indices=ht_idx, algorithm=algorithm)
    torch.cuda.synchronize()
    bos, eos = cu[bad], cu[bad + 1]
    assert torch.isnan(o[bos:eos].float()).all(), "the bad sequence's rows are not all NaN"
    rest = torch.cat([o[:bos], o[eos:]])
    assert not torch.isnan(rest.float()).any(), "NaN outside the bad sequence's rows"
    # The other sequences: as a call on the gathered states, each slot written once.
    ref_o, ref_ht = call(inp, initial_state=gathered(before.as_strided(states.shape, states.stride()), good_idx),
                         output_final_state=True, algorithm=algorithm)
    assert bitwise_equal(o[:bos], ref_o[:bos]) and bitwise_equal(o[eos:], ref_o[eos:])
    expected = before.clone()
    exp_pool = expected.as_strided(states.shape, states.stride())
    for s in range(len(lengths)):
        if s != bad:
            exp_pool[int(good_idx[s])] = ref_ht[s]
    assert bitwise_equal(buf, expected), "a slot other than the good sequences' changed"
    with pytest.raises(ValueError, match=f"{which}_state_indices"):
        call(inp, initial_state=states, initial_state_indices=h0_idx, final_state=states,
             final_state_indices=ht_idx, algorithm=algorithm, validate=True)


def test_graph_replays_carry_the_state():
    """A captured in-place call, replayed twice, equals two chained plain calls."""
    inp, _, buf, states, idx, _ = setup_case("fused-pair", 0, seed=91)
    h0 = gathered(states, idx)
    o1, ht1 = call(inp, initial_state=h0, output_final_state=True)
    o2, ht2 = call(inp, initial_state=ht1, output_final_state=True)
    out = torch.empty_like(o1)
    start = buf.clone()
    graph, _ = capture_graph(lambda: call(inp, initial_state=states, initial_state_indices=idx, output=out,
                                          final_state=states, final_state_indices=idx))
    buf.copy_(start)  # the warm-up call before the capture updated the pool
    graph.replay()
    torch.cuda.synchronize()
    assert bitwise_equal(out, o1) and bitwise_equal(states[idx.long()], ht1)
    graph.replay()
    torch.cuda.synchronize()
    assert bitwise_equal(out, o2) and bitwise_equal(states[idx.long()], ht2)


def test_torch_compile_in_place():
    """Under torch.compile (fullgraph) the in-place pool call gives the eager call's results."""
    inp, algorithm, buf, states, idx, _ = setup_case("fused-v128", 0, seed=101)
    eager_states = states.clone()
    o_eager, _ = call(inp, initial_state=eager_states, initial_state_indices=idx, final_state=eager_states,
                      final_state_indices=idx)

    @torch.compile(fullgraph=True)
    def step(q, k, v, g, b, w, cu, pool_, idx_):
        return gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu, initial_state=pool_, initial_state_indices=idx_,
                               final_state=pool_, final_state_indices=idx_)

    o, _ = step(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], inp["cu_seqlens"], states, idx)
    torch.cuda.synchronize()
    assert bitwise_equal(o, o_eager) and bitwise_equal(states, eager_states)


def test_final_indices_need_a_pool():
    inp, _, _, states, idx, _ = setup_case("recurrent", 0, seed=111)
    with pytest.raises(ValueError, match="final_state_indices"):
        call(inp, initial_state=states, final_state_indices=idx, output_final_state=True)
    with pytest.raises(ValueError, match="initial_state_indices"):
        call(inp, initial_state=states, initial_state_indices=idx.long())


# Slot conflicts that validate=True reports: (what the indices do, the message's words). Each case
# builds its indices from setup_case's distinct slots `idx` of a pool of 2 N + 3 slots.
CONFLICTS = {
    "two-pools-final-repeated": "write the same slot",
    "in-place-final-repeated": "write the same slot",
    "in-place-read-by-another": "starts from",
    "in-place-without-final-indices": "starts from",
    "last-two-of-many-repeated": "write the same slot",
}


def conflict_case(kind):
    """The call's state arguments for one conflict, and the same call with the conflict removed."""
    if kind == "last-two-of-many-repeated":  # 600 one-token sequences: the pair loop's far end
        lengths = (1,) * 600
        inp = make_inputs(lengths, 2, 4, kind="model", seed=131, device="cuda", cu_dtype=torch.int32,
                          gen_device="cuda")
        _, states = pool(len(lengths) + 2, 4, 0, seed=132)
        good = torch.arange(len(lengths), dtype=torch.int32, device="cuda")
        bad = good.clone()
        bad[-1] = bad[-2]
        return inp, dict(initial_state=states, initial_state_indices=good, final_state=states), "final_state_indices", bad, good
    inp, _, buf, states, idx, slots = setup_case("recurrent", 0, seed=121)
    n = idx.numel()
    if kind == "in-place-without-final-indices":  # a pool of exactly N slots, read in another order
        _, states = pool(n, 4, 0, seed=122)
        good = torch.arange(n, dtype=torch.int32, device="cuda")
        bad = good.roll(1)
        return inp, dict(initial_state=states, final_state=states), "initial_state_indices", bad, good
    if kind == "two-pools-final-repeated":
        _, other = pool(slots, 4, 0, seed=123)
        bad = idx.clone()
        bad[3] = bad[7]
        return inp, dict(initial_state=states, initial_state_indices=idx, final_state=other), "final_state_indices", bad, idx
    if kind == "in-place-final-repeated":
        bad = idx.clone()
        bad[5] = bad[0]
        return inp, dict(initial_state=states, initial_state_indices=idx, final_state=states), "final_state_indices", bad, idx
    assert kind == "in-place-read-by-another"  # sequence 2 starts from the slot sequence 9 writes
    bad = idx.clone()
    bad[2] = idx[9]
    return inp, dict(final_state=states, final_state_indices=idx, initial_state=states), "initial_state_indices", bad, idx


@pytest.mark.parametrize("kind", list(CONFLICTS))
def test_validate_reports_slot_conflicts(kind):
    """validate=True refuses indices that make two sequences write one slot, or (in place) one
    sequence write the slot another starts from, before anything is launched or written; the same
    call without the conflict passes validation."""
    inp, kwargs, which, bad, good = conflict_case(kind)
    pool_before = kwargs["initial_state"].clone()
    with pytest.raises(ValueError, match=CONFLICTS[kind]):
        call(inp, **kwargs, **{which: bad}, algorithm="recurrent", validate=True)
    torch.cuda.synchronize()
    assert bitwise_equal(kwargs["initial_state"], pool_before), "a refused call wrote the pool"
    call(inp, **kwargs, **{which: good}, algorithm="recurrent", validate=True)


def test_validate_accepts_shared_reads_and_repeated_negatives():
    """Not conflicts: two sequences starting from one slot (separate pools), several sequences
    without a final slot (negative indices), and in place each sequence reading and writing its own
    slot."""
    inp, _, _, states, idx, slots = setup_case("recurrent", 0, seed=141)
    _, other = pool(slots, 4, 0, seed=142)
    shared = idx.clone()
    shared[1] = shared[0]
    dropped = idx.clone()
    dropped[::2] = -1
    call(inp, initial_state=states, initial_state_indices=shared, final_state=other, final_state_indices=dropped,
         algorithm="recurrent", validate=True)
    in_place_start = idx.clone()
    in_place_start[::3] = -1  # new sequences start from zeros, still written to their own slot
    call(inp, initial_state=states, initial_state_indices=in_place_start, final_state=states,
         final_state_indices=idx, algorithm="recurrent", validate=True)


def pool_bf16(slots, hv, gap, seed):
    """pool() in bf16: `slots` states [slots, hv, D, D], `gap` elements of padding after each."""
    per_slot = hv * D * D + gap
    gen = torch.Generator(device="cuda").manual_seed(seed)
    buf = (torch.randn(slots * per_slot, generator=gen, device="cuda") * 0.1).to(torch.bfloat16)
    return buf, buf.as_strided((slots, hv, D, D), (per_slot, D * D, D, 1))


@pytest.mark.parametrize("gap", [0, 4], ids=["dense", "strided"])
@pytest.mark.parametrize("name", list(CASES))
def test_bf16_pool_in_place(name, gap):
    """A bf16 pool (as vLLM keeps its GDN states by default) updated in place: the output is bit for
    bit the fp32 call's on the slots widened to fp32, each written slot is that call's final state
    rounded once to bf16 (nearest even), and no other element changes (gaps included)."""
    inp, algorithm, _, _, idx, slots = setup_case(name, 0, seed=151)
    buf, states = pool_bf16(slots, CASES[name][2], gap, seed=152)
    start = idx.clone()
    start[::3] = -1  # new sequences: from zeros, still written to their slot
    before = buf.clone()
    o, _ = call(inp, initial_state=states, initial_state_indices=start, final_state=states,
                final_state_indices=idx, algorithm=algorithm)
    ref_o, ref_ht = call(inp, initial_state=gathered(before.as_strided(states.shape, states.stride()).float(), start),
                         output_final_state=True, algorithm=algorithm)
    torch.cuda.synchronize()
    assert bitwise_equal(o, ref_o), "output differs from the fp32 call on the widened slots"
    expected = before.clone()
    expected.as_strided(states.shape, states.stride())[idx.long()] = ref_ht.to(torch.bfloat16)
    assert bitwise_equal(buf, expected), "pool differs (the written slots' rounding, or other elements touched)"


@pytest.mark.parametrize("name", ["chunked-v32", "chunked-v128", "recurrent", "fused-pair", "fused-gva-pair"])
def test_bf16_states_without_indices(name):
    """Per-sequence states in bf16, and a bf16 initial state with an fp32 final state (given, and
    allocated by output_final_state): each as the fp32 call on the widened initial state."""
    inp, algorithm, _, _, _, _ = setup_case(name, 0, seed=161)
    n, hv = len(CASES[name][0]), CASES[name][2]
    _, h0 = pool_bf16(n, hv, 0, seed=162)
    ref_o, ref_ht = call(inp, initial_state=h0.float(), output_final_state=True, algorithm=algorithm)
    ht16 = torch.full((n, hv, D, D), float("nan"), dtype=torch.bfloat16, device="cuda")
    o, _ = call(inp, initial_state=h0, final_state=ht16, algorithm=algorithm)
    assert bitwise_equal(o, ref_o) and bitwise_equal(ht16, ref_ht.to(torch.bfloat16))
    ht32 = torch.full((n, hv, D, D), float("nan"), device="cuda")
    o, _ = call(inp, initial_state=h0, final_state=ht32, algorithm=algorithm)
    assert bitwise_equal(o, ref_o) and bitwise_equal(ht32, ref_ht)
    o, ht = call(inp, initial_state=h0, output_final_state=True, algorithm=algorithm)
    assert ht.dtype == torch.float32 and bitwise_equal(o, ref_o) and bitwise_equal(ht, ref_ht)


def test_bf16_final_state_accuracy():
    """Against the fp64 reference, a bf16 final state is within the tests' state tolerance: its
    rounding (2^-9 relative per element) is the only error added to the fp32 state's."""
    inp = make_inputs((300, 41, 200), 2, 4, kind="model", initial_state=True, seed=171, device="cuda",
                      cu_dtype=torch.int32, gen_device="cuda")
    h0 = inp["initial_state"].to(torch.bfloat16)
    ht16 = torch.empty(h0.shape, dtype=torch.bfloat16, device="cuda")
    o, _ = call(inp, initial_state=h0, final_state=ht16)
    ref_o, ref_ht = gdn2.reference_tokenwise(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
                                             cu_seqlens=inp["cu_seqlens"], initial_state=h0.float())
    assert norm_rel_error(o, ref_o) < OUT_TOL
    assert norm_rel_error(ht16, ref_ht) < STATE_TOL
