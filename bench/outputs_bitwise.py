"""Whether two builds of gdn2 give the same bits: for a change that must not touch the arithmetic
(a schedule, a prologue, instruction order), a stronger check than the tests' tolerances.

  PYTHONPATH=<build A>/python python3 bench/outputs_bitwise.py dump A.pt
  PYTHONPATH=<build B>/python python3 bench/outputs_bitwise.py dump B.pt
  python3 bench/outputs_bitwise.py compare A.pt B.pt     # exit status 0: every bit equal; 1: the
                                                          # values differ; 2: not comparable

`dump` runs chunk_gdn2 on fixed inputs (python/gdn2/testing.py, model-like, device generator,
seed 5) that reach every kernel variant: one chunk, one sequence beside phase 1 (with and without
an initial state), 64 value heads on 16 key heads (the 64-channel pass), mixed lengths with strong
decays (the exact path of phase 1), 8 x 2048 tokens (the 128-channel pass), and two cases of GVA
heads on the fused path's 128-channel form (4 x 4096 tokens through auto; four mixed lengths with
strong decays, fused forced), which its GVA pair serves; it saves the outputs and final states. Two dumps of the same build are equal too: the kernels are deterministic
(phase 1's work counter changes which CTA takes an item, not what the item computes).
"""
import sys

import torch

CASES = [  # name, sequence lengths, key heads, value heads, make_inputs options
    ("one-chunk", (64,), 16, 16, {}),
    ("T1024-h0", (1024,), 16, 16, {"initial_state": True}),
    ("T2048", (2048,), 16, 16, {}),
    ("gva4-T1024", (1024,), 16, 64, {}),
    ("mixed-strong", "random", 4, 8, {"decay": ("mixed", -60.0)}),
    ("strong-T700", (700,), 2, 2, {"decay": ("uniform", -50.0)}),
    ("B8x2K", (2048,) * 8, 16, 16, {}),
    ("B4x4K-GVA2", (4096,) * 4, 16, 32, {}),
    ("gva4-pair-fused", (300, 129, 17, 1, 300), 8, 32, {"decay": ("mixed", -60.0), "algorithm": "fused"}),
]


def dump(path):
    import gdn2
    from gdn2 import testing

    saved = {}
    for name, lengths, hq, hv, options in CASES:
        if lengths == "random":
            lengths = testing.random_lengths(20, 1, 400, 3)
        options = dict(options)
        algorithm = options.pop("algorithm", "auto")
        x = testing.make_inputs(lengths, hq, hv, kind="model", seed=5, device="cuda", gen_device="cuda", **options)
        o, ht = gdn2.chunk_gdn2(x["q"], x["k"], x["v"], x["g"], x["b"], x["w"], cu_seqlens=x["cu_seqlens"],
                                initial_state=x["initial_state"], output_final_state=True, algorithm=algorithm)
        torch.cuda.synchronize()
        saved[name] = {"o": o.cpu(), "final_state": ht.cpu()}
    torch.save(saved, path)
    print(f"saved {path}: {', '.join(saved)}")


def bits(t):
    return t.view(torch.int16) if t.dtype == torch.bfloat16 else t.view(torch.int32)


def compare(path_a, path_b):
    """0: every output and final state bit for bit equal; 1: same cases, shapes and dtypes, some values
    differ; 2: not comparable (a dump missing or unreadable, other cases, shapes or dtypes)."""
    try:
        a, b = torch.load(path_a), torch.load(path_b)
    except Exception as e:  # noqa: BLE001 - any failure to read a dump means there is nothing to compare
        print(f"cannot read the dumps: {e}")
        return 2
    if sorted(a) != sorted(b):
        print(f"different cases: {sorted(a)} against {sorted(b)}")
        return 2
    equal = comparable = True
    for name in a:
        for what in ("o", "final_state"):
            x, y = a[name][what], b[name][what]
            if x.shape != y.shape or x.dtype != y.dtype:
                print(f"{name:13s} {what:12s} not comparable: {tuple(x.shape)} {x.dtype} against {tuple(y.shape)} {y.dtype}")
                comparable = False
                continue
            same = torch.equal(bits(x), bits(y))
            diff = (x.double() - y.double()).abs().max().item()
            print(f"{name:13s} {what:12s} bit for bit equal: {same}  max |difference| {diff:.3e}")
            equal = equal and same
    if not comparable:
        print("the builds' outputs are not comparable")
        return 2
    print("every output and final state is bit for bit equal" if equal else "the builds differ")
    return 0 if equal else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
