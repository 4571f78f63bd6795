"""bench/segments.py on the CPU: sequences cut into segments, run apart (the later ones from a
zero state, beside identity heads), then joined by the scan and the output correction, must give
the fp64 recurrence's outputs and final states (docs/performance.md, remaining gap item 8)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import segments  # noqa: E402


def run(inp, cu, scale):
    return segments.recurrence(*(inp[n] for n in ("q", "k", "v", "g", "b", "w")), cu,
                               inp["initial_state"], scale)


@pytest.mark.parametrize("hq,hv", [(2, 2), (2, 4), (1, 3)])
@pytest.mark.parametrize("decay", [-1.0, -50.0])
@pytest.mark.parametrize("seg_len", [1, 4, 5, 100])
def test_segments_match_the_recurrence(hq, hv, decay, seg_len):
    lengths, dim, scale = (1, 7, 13, 4, 20), 6, 0.4
    for initial in (False, True):
        inp, cu = segments.model_inputs(lengths, hq, hv, dim, decay, initial, seed=seg_len + hv)
        o_ref, fs_ref = run(inp, cu, scale)
        ix = segments.SegmentIndex(segments.ArrayOps(), segments.plan(lengths, seg_len))
        a_in, b_in = segments.split_inputs(ix, inp, hq, hv)
        o_a, fs_a = run(a_in, ix.plan.cu_a, scale)
        o_b, fs_b = run(b_in, ix.plan.cu_b, scale)
        start, final = segments.segment_states(ix, fs_a, fs_b, hq, hv)
        out = segments.combine(ix, o_a, o_b, start, hq, hv, np.full_like(o_ref, np.nan))
        # exact algebra, so only fp64 rounding separates the two (|o| is O(1) here)
        np.testing.assert_allclose(out, o_ref, rtol=0, atol=1e-11)
        np.testing.assert_allclose(final, fs_ref, rtol=0, atol=1e-11)
        # each sequence cut into ceil(L / seg_len) segments, all but the first in call B
        assert ix.nb == sum(max(0, -(-n // seg_len) - 1) for n in lengths)


def test_plan_covers_every_token_once_in_order():
    lengths = (3, 10, 1, 9)
    p = segments.plan(lengths, 4)
    assert sorted(np.concatenate([p.tokens_a, p.tokens_b]).tolist()) == list(range(sum(lengths)))
    assert p.cu_a.tolist() == [0, 3, 7, 8, 12]
    assert p.cu_b.tolist() == [0, 4, 6, 10, 11]       # 10 -> 4 + 4 + 2, 9 -> 4 + 4 + 1
    assert p.seq_b.tolist() == [1, 1, 3, 3]
    assert p.rank_b.tolist() == [1, 2, 1, 2]
    assert p.prev_b.tolist() == [-1, 0, -1, 2]
    assert p.last_b.tolist() == [-1, 1, -1, 3]
    assert p.pad_b[1].tolist() == [4, 5, -1, -1]
    with pytest.raises(ValueError, match="seg_len"):
        segments.plan(lengths, 0)


def test_identity_heads_need_square_heads():
    inp, _ = segments.model_inputs((5,), 1, 1, 4, -1.0, False, seed=0)
    inp["v"] = inp["v"][:, :, :3]
    ix = segments.SegmentIndex(segments.ArrayOps(), segments.plan((5,), 2))
    with pytest.raises(ValueError, match="V == K"):
        segments.split_inputs(ix, inp, 1, 1)


def test_torch_backend_matches_numpy():
    """The probe runs the same decomposition on torch tensors (the GPU probe's backend)."""
    torch = pytest.importorskip("torch")
    lengths, hq, hv, dim, scale, seg_len = (9, 2, 17), 2, 4, 6, 0.4, 4
    inp, cu = segments.model_inputs(lengths, hq, hv, dim, -50.0, True, seed=3)
    o_ref, fs_ref = run(inp, cu, scale)
    ops = segments.ArrayOps(torch)
    ix = segments.SegmentIndex(ops, segments.plan(lengths, seg_len), "cpu")
    tin = {n: None if x is None else torch.from_numpy(x) for n, x in inp.items()}
    a_in, b_in = segments.split_inputs(ix, tin, hq, hv)

    def run_torch(x, cu_part):
        o, fs = run({n: None if t is None else t.numpy() for n, t in x.items()}, cu_part, scale)
        return torch.from_numpy(o), torch.from_numpy(fs)
    o_a, fs_a = run_torch(a_in, ix.plan.cu_a)
    o_b, fs_b = run_torch(b_in, ix.plan.cu_b)
    start, final = segments.segment_states(ix, fs_a, fs_b, hq, hv)
    out = segments.combine(ix, o_a, o_b, start, hq, hv, torch.full(o_ref.shape, float("nan"),
                                                                   dtype=torch.float32))
    np.testing.assert_allclose(out.numpy(), o_ref, rtol=0, atol=1e-5)   # out is fp32
    np.testing.assert_allclose(final.numpy(), fs_ref, rtol=0, atol=1e-11)


def test_prediction_model():
    # S2: one sequence of 64 blocks on 32 64-channel CTAs; cut every 256 tokens, call B's 96
    # 128-channel CTAs of 16 blocks each bound it (call A's 32 CTAs fit beside them)
    assert segments.predicted_us((1024,), 16, 16) == pytest.approx(64 * 1.44)
    assert segments.predicted_us((1024,), 16, 16, 256) == pytest.approx(16 * 1.84)
    # more CTAs than SMs: LPT packs 133 equal CTAs into two rounds
    assert segments.makespan([1.0] * 133) == pytest.approx(2.0)
