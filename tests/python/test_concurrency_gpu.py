"""Concurrency (issue 4, deliverable 5): calls running at the same time give the results of serial calls.

(a) two CUDA streams at once, different inputs: A on stream 1 and B on stream 2, interleaved, with
    no synchronisation between the calls;
(b) two host threads, each with its own stream and inputs, many calls each.
Every concurrent result is compared bitwise, on its own stream, with the serial result of the same
inputs (output and final state); the mismatch counters are read once at the end.

Pairs: MHA with GVA4 (different shapes and different phase-2 variants: state_pass<32> next to
state_pass v128 on 132 SMs), two problems of the same shape with different values, and the very
same input tensors on both sides.
"""

import threading

import pytest

from conftest import require_gpu_gdn2

torch, gdn2 = require_gpu_gdn2()

from gdn2.testing import make_inputs  # noqa: E402

STREAM_ROUNDS = 25   # calls per stream in (a)
THREAD_CALLS = 60    # calls per thread in (b)
JOIN_TIMEOUT_S = 300

# name: (lengths, hq, hv, initial_state, cu_seqlens dtype, seed)
PROBLEMS = {
    "mha-T4096-N4": ((1000, 1024, 1500, 572), 8, 8, True, torch.int32, 31),        # v32
    "gva4-T4096-N4": ((65, 2000, 31, 2000), 8, 32, False, torch.int64, 32),       # v128 on 132 SMs
    "mha-T4096-N4-other": ((1000, 1024, 1500, 572), 8, 8, True, torch.int32, 33),
}
PAIRS = {
    "mha+gva4": ("mha-T4096-N4", "gva4-T4096-N4"),
    "same-shape": ("mha-T4096-N4", "mha-T4096-N4-other"),
    "same-inputs": ("mha-T4096-N4", "mha-T4096-N4"),
}


def problem(name):
    lengths, hq, hv, h0, cu_dtype, seed = PROBLEMS[name]
    return make_inputs(lengths, hq, hv, kind="model", initial_state=h0, seed=seed, device="cuda",
                       cu_dtype=cu_dtype, gen_device="cuda")


def call(inp):
    return gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"],
                           cu_seqlens=inp["cu_seqlens"], initial_state=inp["initial_state"],
                           output_final_state=True)


def serial(inp):
    o, h = call(inp)
    return o.clone(), h.clone()


def count_mismatches(counter, result, ref):
    """Bitwise mismatches of (output, final_state) against ref, added on the device (no sync)."""
    o, h = result
    counter.add_((o.view(torch.int16) != ref[0].view(torch.int16)).sum())
    counter.add_((h.view(torch.int32) != ref[1].view(torch.int32)).sum())


def pair_inputs(pair):
    name_a, name_b = PAIRS[pair]
    a = problem(name_a)
    b = a if name_b == name_a else problem(name_b)
    ref_a, ref_b = serial(a), serial(b)
    torch.cuda.synchronize()
    # sanity: the serial results are finite (so a NaN can never compare equal by accident)
    for o, h in (ref_a, ref_b):
        assert bool(torch.isfinite(o).all()) and bool(torch.isfinite(h).all())
    return a, b, ref_a, ref_b


@pytest.mark.timeout(600, method="thread")
@pytest.mark.parametrize("pair", list(PAIRS))
def test_two_streams_match_serial(pair):
    a, b, ref_a, ref_b = pair_inputs(pair)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    main = torch.cuda.current_stream()
    s1.wait_stream(main)
    s2.wait_stream(main)
    with torch.cuda.stream(s1):
        mismatch_a = torch.zeros((), dtype=torch.int64, device="cuda")
    with torch.cuda.stream(s2):
        mismatch_b = torch.zeros((), dtype=torch.int64, device="cuda")
    for _ in range(STREAM_ROUNDS):  # interleaved launches, no synchronisation in between
        with torch.cuda.stream(s1):
            count_mismatches(mismatch_a, call(a), ref_a)
        with torch.cuda.stream(s2):
            count_mismatches(mismatch_b, call(b), ref_b)
    main.wait_stream(s1)
    main.wait_stream(s2)
    torch.cuda.synchronize()
    assert int(mismatch_a) == 0, f"stream 1: {int(mismatch_a)} values differ from the serial call"
    assert int(mismatch_b) == 0, f"stream 2: {int(mismatch_b)} values differ from the serial call"
    # and serial calls after the concurrent ones still agree
    for inp, ref in ((a, ref_a), (b, ref_b)):
        o, h = call(inp)
        assert torch.equal(o.view(torch.int16), ref[0].view(torch.int16))
        assert torch.equal(h.view(torch.int32), ref[1].view(torch.int32))


@pytest.mark.timeout(600, method="thread")
@pytest.mark.parametrize("pair", list(PAIRS))
def test_two_threads_match_serial(pair):
    a, b, ref_a, ref_b = pair_inputs(pair)
    device = a["q"].device
    barrier = threading.Barrier(2)
    errors, counts = [], {}

    def worker(name, inp, ref):
        try:
            torch.cuda.set_device(device)  # the current device is per thread
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                mismatch = torch.zeros((), dtype=torch.int64, device=device)
                calls = 0
                barrier.wait(timeout=60)
                for _ in range(THREAD_CALLS):
                    count_mismatches(mismatch, call(inp), ref)
                    calls += 1
            stream.synchronize()
            counts[name] = (int(mismatch), calls)
        except BaseException as exc:  # reported by the main thread
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
            barrier.abort()

    threads = [threading.Thread(target=worker, args=("thread-A", a, ref_a), daemon=True),
               threading.Thread(target=worker, args=("thread-B", b, ref_b), daemon=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=JOIN_TIMEOUT_S)
    assert not any(t.is_alive() for t in threads), "a worker thread hangs"
    assert not errors, "; ".join(errors)
    for name in ("thread-A", "thread-B"):
        mismatch, calls = counts[name]
        assert calls == THREAD_CALLS
        assert mismatch == 0, f"{name}: {mismatch} values differ from the serial call"
