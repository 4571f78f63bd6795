"""Where each algorithm wins: GPU time (CUDA-graph replay) of the chunked, recurrent and fused
algorithms, forced, on small and short-sequence problems, and which one "auto" picks (src/launch.cu).

    PYTHONPATH=python python3 bench/algorithm_crossover.py [--out DIR] [--set short|long|many] [--time-auto]

--set long times batches of longer sequences (512 to 4096 tokens, equal or mixed lengths), where
the fused path's one CTA chain per sequence competes with the chunked path only when there are
enough sequences; recurrent is not timed there (--algorithms chunked,fused is the default). --set many
times batches of 128 to 4,096 sequences the same way, and --time-auto times auto itself too.

Writes DIR/crossover.json and DIR/crossover.md (default: bench/results/<date>-<gpu>-crossover).
"auto" is read twice: without a max_seqlen hint (kAuto then assumes the longest sequence is
T - N + 1 tokens) and with max_seqlen = the longest sequence's length.
Inputs: the benchmark's model-like inputs (gdn2.testing.make_inputs), final state on, an initial
state only for the shapes named -h0. Which algorithm auto ran is read from the bitwise equality
of its results with each forced call's.
"""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import default_out_dir, graph_time_ms, metadata  # noqa: E402

ALGORITHMS = ("chunked", "recurrent", "fused")

# (name, lengths, Hq, Hv); a name ending in -h0 runs with an initial state
SHAPES = (
    [(f"1x{t}-hv16", (t,), 16, 16) for t in (1, 16, 32, 64, 96, 128, 192, 256)]
    + [("1x16-hq1-hv1", (16,), 1, 1), ("1x64-hv32", (64,), 16, 32), ("1x64-hv64", (64,), 16, 64),
       ("1x128-hv32", (128,), 16, 32)]
    + [(f"{n}x1-hv16", (1,) * n, 16, 16) for n in (8, 16, 32, 128, 512)]
    # small batches just past one round of the persistent forms, near the recurrent path's crossover
    + [("16x1-hq4-hv16", (1,) * 16, 4, 16), ("20x4-hq4-hv8", (4,) * 20, 4, 8), ("7x4-hv32", (4,) * 7, 16, 32),
       ("7x8-hv16", (8,) * 7, 16, 16)]
    + [(f"{n}x1-hv32", (1,) * n, 16, 32) for n in (32, 128)]
    + [(f"{n}x4-hv16", (4,) * n, 16, 16) for n in (16, 64, 256)]
    + [(f"{n}x16-hv16", (16,) * n, 16, 16) for n in (4, 16, 64)]
    + [(f"{n}x64-hv16", (64,) * n, 16, 16) for n in (2, 8, 32)]
    + [("1x48-hv16", (48,), 16, 16), ("1x32-hv64", (32,), 16, 64), ("32x1-hv64", (1,) * 32, 16, 64),
       ("128x1-hv64", (1,) * 128, 16, 64), ("2048x1-hv16", (1,) * 2048, 16, 16),
       ("64x8-hv16", (8,) * 64, 16, 16), ("64x8-hv32", (8,) * 64, 16, 32)]
    + [("1x64-hv16-h0", (64,), 16, 16), ("128x1-hv16-h0", (1,) * 128, 16, 16),
       ("64x4-hv16-h0", (4,) * 64, 16, 16), ("128x1-hv32-h0", (1,) * 128, 16, 32)]
    + [("64x32-hv16", (32,) * 64, 16, 16), ("16x128-hv16", (128,) * 16, 16, 16), ("8x256-hv16", (256,) * 8, 16, 16),
       ("2x512-hv16", (512,) * 2, 16, 16), ("1x96-hv64", (96,), 16, 64), ("1x32-hv16-h0", (32,), 16, 16)]
)

# Batches of longer sequences (--set long): (name, lengths, Hq, Hv); "mixed" lengths are uniform
# in [1, L] (gdn2.testing.random_lengths, seed 103 as the benchmark's N64-MIXED rows).
def long_shapes(random_lengths):
    equal = [(n, t) for t in (512, 1024, 2048, 4096) for n in (2, 4, 8, 16, 32) if n * t <= 32768]
    return (
        [(f"{n}x{t}-hv16", (t,) * n, 16, 16) for n, t in equal]
        + [(f"{n}x{t}-hv32", (t,) * n, 16, 32) for n, t in ((4, 1024), (8, 1024), (8, 2048), (16, 1024), (4, 4096))]
        + [(f"mixed{n}x{t}-hv{hv}", random_lengths(n, 1, t, seed=103), 16, hv)
           for n, t, hv in ((64, 512, 16), (64, 512, 32), (32, 1024, 16), (128, 256, 16), (16, 2048, 16),
                            (128, 256, 32), (32, 1024, 32))]
        # GVA 2 over several rounds of the fused path's CTAs: the fit's v128 estimate overstates
        # mixed64x512-hv32 by 20% (bench/results/2026-12-05-nvidia-h200-fused-template/fit.txt)
        + [("32x512-hv32", (512,) * 32, 16, 32)]
    )


# Batches of many sequences (--set many): where kAuto's choice on the device (no max_seqlen hint)
# must weigh the other path's CTAs, which start and leave (src/contract.cpp, plan_launch): the
# chunked path's 128-channel pass has N Hv CTAs, tens of rounds of the SMs here.
def many_shapes(random_lengths):
    return (
        [(f"mixed128x256-hv{hv}", random_lengths(128, 1, 256, seed=103), 16, hv) for hv in (16, 32)]
        + [(f"{n}x{t}-hv16", (t,) * n, 16, 16) for n, t in ((256, 64), (512, 64), (1024, 64), (2048, 16), (4096, 8))]
        + [("256x64-hv32", (64,) * 256, 16, 32)]
    )


def save(out_dir, meta, rows, complete):
    """crossover.json and crossover.md of the rows so far; meta["complete"] is False until the last."""
    meta = dict(meta, complete=complete)
    with open(os.path.join(out_dir, "crossover.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    lines = ["| shape | T | N | Hq | Hv | " + " | ".join(f"{a} graph (us)" for a in ALGORITHMS)
             + " | fastest | auto picks | auto with max_seqlen picks |",
             "|---|---|---|---|---|" + "---|" * (len(ALGORITHMS) + 3)]
    for r in rows:
        lines.append(f"| {r['name']} | {r['T']} | {r['N']} | {r['Hq']} | {r['Hv']} | "
                     + " | ".join(f"{r[f'{a}_us']:.1f}" for a in ALGORITHMS)
                     + f" | {r['best']} | {r['auto']} | {r['auto_hint']} |")
    with open(os.path.join(out_dir, "crossover.md"), "w") as f:
        f.write(f"# {', '.join(ALGORITHMS)}: GPU time per call\n\n{meta}\n\n" + "\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="")
    p.add_argument("--replays", type=int, default=30)
    p.add_argument("--shapes", default="", help="comma-separated shape names (default: all)")
    p.add_argument("--set", choices=("short", "long", "many"), default="short",
                   help="short: the one-launch paths' crossover (default); long: batches of longer sequences; "
                        "many: batches of 128 to 4096 sequences")
    p.add_argument("--time-auto", action="store_true",
                   help="also time auto itself, without and with the max_seqlen hint (auto_us, auto_hint_us): "
                        "what kAuto's pick costs, its choice on the device included")
    p.add_argument("--algorithms", default="", help="which ones to time (default: all three; chunked,fused for --set long)")
    args = p.parse_args()
    import torch
    import gdn2
    from gdn2 import testing

    shapes = {"short": lambda: SHAPES, "long": lambda: long_shapes(testing.random_lengths),
              "many": lambda: many_shapes(testing.random_lengths)}[args.set]()
    if not args.algorithms:
        args.algorithms = ",".join(ALGORITHMS) if args.set == "short" else "chunked,fused"

    out_dir = args.out or f"{default_out_dir(torch)}-crossover" + ("" if args.set == "short" else "-long")
    os.makedirs(out_dir, exist_ok=True)
    meta = metadata(torch, gdn2, 0.0, "not run")
    del meta["copy_bandwidth_tb_s"], meta["fla_import_error"]

    rows = []
    with torch.inference_mode():
        wanted = [x for x in args.shapes.split(",") if x]
        timed = [x for x in args.algorithms.split(",") if x]
        for name, lengths, hq, hv in shapes:
            if wanted and name not in wanted:
                continue
            inp = testing.make_inputs(lengths, hq, hv, kind="model", initial_state=name.endswith("-h0"),
                                      seed=21, device="cuda", gen_device="cuda")
            q, k, v, g, b, w = (inp[n] for n in "qkvgbw")

            def call(algorithm, max_seqlen=None):
                return gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=inp["cu_seqlens"],
                                       initial_state=inp["initial_state"], output_final_state=True,
                                       algorithm=algorithm, max_seqlen=max_seqlen)

            out = {a: call(a) for a in ("auto",) + ALGORITHMS}
            out["auto_hint"] = call("auto", max(lengths))
            torch.cuda.synchronize()

            def pick(key):
                picks = [a for a in ALGORITHMS
                         if all(torch.equal(x.view(torch.uint8), y.view(torch.uint8))
                                for x, y in zip(out[key], out[a]))]
                return picks[0] if len(picks) == 1 else "?"
            rec = {"name": name, "T": sum(lengths), "N": len(lengths), "Hq": hq, "Hv": hv,
                   "max_seqlen": max(lengths), "auto": pick("auto"), "auto_hint": pick("auto_hint")}
            for a in ALGORITHMS:
                if a not in timed:
                    rec[f"{a}_us"] = float("nan")
                    continue
                calls = 20 if sum(lengths) * hv <= 1 << 14 else 4
                rec[f"{a}_us"] = 1e3 * statistics.median(
                    graph_time_ms(torch, lambda a=a: call(a), calls, args.replays))
            rec["best"] = min(timed, key=lambda a: rec[f"{a}_us"])  # of the algorithms timed
            times = "  ".join(f"{a} {rec[f'{a}_us']:8.1f} us" for a in ALGORITHMS)
            if args.time_auto:
                for key, hint in (("auto", None), ("auto_hint", max(lengths))):
                    rec[f"{key}_us"] = 1e3 * statistics.median(
                        graph_time_ms(torch, lambda hint=hint: call("auto", hint), calls, args.replays))
                times += f"  auto {rec['auto_us']:8.1f} us (with max_seqlen {rec['auto_hint_us']:8.1f} us)"
            print(f"{name:16s} T={rec['T']:5d} N={rec['N']:4d} Hv={hv:3d}  {times}  "
                  f"best {rec['best']:9s} auto {rec['auto']} (with max_seqlen {rec['auto_hint']})",
                  flush=True)
            rows.append(rec)
            save(out_dir, meta, rows, complete=False)  # what is measured survives a timeout

    save(out_dir, meta, rows, complete=True)
    print(f"wrote {out_dir}/crossover.json and crossover.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
