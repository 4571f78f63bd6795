"""Fits kAuto's estimates of the fused and chunked paths (src/contract.cpp, choose_algorithm) to
measured crossovers, and reports how well the estimates pick.

    python3 bench/fit_auto.py DIR/crossover.json [MORE.json ...] [--sms 132] [--out FIT.json]

Input: bench/algorithm_crossover.py's crossover.json (--set short and --set long), whose rows hold
each shape's T, N, Hq, Hv, longest sequence and graph time per algorithm. CPU only.

The fused path's model (fused.cuh): items = N Hv s work items (s = 2 value slices per head where
the 2 N Hv CTAs fit on the SMs, else 1), a CTA each, at most one per SM at a time, so
G = min(items, SMs) run at once. An SM's chain of blocks is at least the longest sequence's,
ceil(L / 16), and, the CTAs taking the SMs as they free, about an even share of all blocks,
s Hv sum ceil(n / 16) / G <= s Hv (T + 15 N) / (16 G):

    t = a + c max(ceil(L / 16), ceil(s Hv (T + 15 N) / (16 G))) + o ceil(items / G)

fitted for each form (s = 2, s = 1) by least squares on the relative error. With --gva-pair (a
build with the 128-channel form's GVA pair, src/kernels/fused_v128_pair.cu: where s = 1 and each key
head has an even number of value heads, the two value heads of a key head run as a cluster that
shares their key side) those rows are a form of their own, fitted apart (key 0). With --persistent
(a build with the 128-channel form on persistent CTAs, src/kernels/fused_v128_persistent.cu: where
s = 1, no GVA pair runs, items > SMs and N <= 4096, one CTA per SM takes the items in turn) those
rows are fitted apart too (key 3): there a CTA's start is paid once per SM, not once per item;
with both, the GVA pair past one round of its clusters (src/kernels/fused_v128_pair_persistent.cu:
N Hv / 2 > SMs / 2 clusters' items, N <= 256, a cluster per two SMs taking them in turn) is a
form of its own too (key 4). With --persistent-one-round (builds since the persistent forms also
run within one round of the SMs, in place of the one-item kernels) keys 3 and 4 take those rows
too.

The chunked path's model (src/launch.cu): phase 1 takes Hq (T + 63 N) / 64 chunk items on the
SMs, then the state pass runs one CTA per (sequence, value head, slice of 32, 64 or 128 value
channels: the widest whose CTAs fit in one wave, else 128); each CTA is a chain of its sequence's
chunks, and past one wave the CTAs share the SMs (longest first):

    t = a + b ceil(Hq (T + 63 N) / (64 SMs)) + c_w max(ceil(L / 64), ceil(Hv (V / w) (T + 63 N) / (64 SMs)))
          + r ceil(N Hv / SMs)   (w = 128 only)

with one c_w per pass width w, and for the 128-channel pass a cost r per round of its CTAs (a CTA's
start: its barriers, initial state and first copies), which the chain alone charged per chunk:
without it the estimate overstated the long GVA-2 rows by 12-17% and understated the rows of
one-token sequences. (One long sequence runs the 32-channel pass beside phase 1, so
there the sum overstates.) The report restates src/contract.cpp's recurrent and chunked
estimates and gives, per shape, the measured times, the estimates (the chunked one fitted when
the rows determine it, else contract.cpp's), the algorithm the smallest estimate picks (with L
the longest length, as with the max_seqlen hint; the fused estimate weighed by --fused-margin, as
kAuto does) and its regret (the pick's measured time over the fastest one's).
"""

import argparse
import json
import math
import sys

ALGORITHMS = ("chunked", "recurrent", "fused")
RECURRENT_SLICES, RECURRENT_CTAS_PER_SM = 8, 2  # src/kernels/kernel_params.h
RECURRENT_ROUND_FLOOR = 1.88  # src/contract.cpp, kRecurrentRoundFloor (us)
# kAuto takes the fused path only where its estimate times this margin is the smallest: its time
# depends on how many blocks take the exact path (strong decays), which sizes cannot show
# (src/contract.cpp, kFusedMargin: per form, 2 value slices per head or 1). In the 128-channel form
# (batches) the margin is 1: that estimate already overstates the mixed batches by 5-13%.
FUSED_MARGIN = {2: 1.05, 1: 1.0}
# The forms by key: 2 and 1 value slices per head, 0 for the 128-channel form's GVA pair, 3 for
# that form on persistent CTAs, 4 for the GVA pair on persistent clusters.
FORM_NAMES = {2: "v64 (2 items per head)", 1: "v128 (1 item per head)", 0: "v128 GVA pair (1 item per head)",
              3: "v128 persistent (1 item per head, CTAs take items in turn)",
              4: "v128 GVA pair persistent (1 item per head, clusters take items in turn)"}
FORM_ORDER = (2, 1, 0, 3, 4)
PERSISTENT_MAX_SEQUENCES = 4096  # kernel_params.h, kFusedPersistentMaxSequences
PAIR_PERSISTENT_MAX_SEQUENCES = 256  # kernel_params.h, kFusedPairPersistentMaxSequences
HEAD_DIM_V = 128
PASS_WIDTHS = (32, 64, 128)
GVA_PAIR_MIN_MEAN_TOKENS = 128  # kernel_params.h, kGvaPairMinMeanTokens


def fused_form(n, hv, sms):
    """(value slices per head, items, CTAs) of the fused launch (kernel_params.h, fused_slices)."""
    s = 2 if 2 * n * hv <= sms else 1
    items = n * hv * s
    return s, items, min(items, sms)


def fused_key(row, sms, gva_pair=False, persistent=False, one_round=False):
    """The form's key (FORM_NAMES): s, or 0 where the build has the GVA pair and it runs (s = 1, an
    even number of value heads per key head and 128 tokens per sequence on average: kernel_params.h,
    fused_gva_pair), or 3 where the build has the persistent form and it runs (s = 1 without the
    pair, at most 4,096 sequences, more items than SMs unless `one_round`: kernel_params.h,
    fused_persistent), or 4 where the build has both and the pair's persistent form runs (at most
    256 sequences, past one round of its clusters unless `one_round`: kernel_params.h,
    fused_gva_pair_persistent)."""
    s, items, _ = fused_form(row["N"], row["Hv"], sms)
    pair = gva_pair and s == 1 and (row["Hv"] // row["Hq"]) % 2 == 0 and row["T"] >= GVA_PAIR_MIN_MEAN_TOKENS * row["N"]
    past_one_round = one_round or (items // 2 > sms // 2 if pair else items > sms)  # clusters of 2, or CTAs
    if persistent and s == 1 and past_one_round and row["N"] <= (PAIR_PERSISTENT_MAX_SEQUENCES if pair else
                                                               PERSISTENT_MAX_SEQUENCES):
        return 4 if pair else 3
    return 0 if pair else s


def fused_features(row, sms):
    """(1, chain blocks, items per CTA) of the model above."""
    t, n, hv, longest = row["T"], row["N"], row["Hv"], row["max_seqlen"]
    s, items, grid = fused_form(n, hv, sms)
    share = math.ceil(s * hv * (t + 15 * n) / (16 * grid))
    return 1.0, float(max(math.ceil(longest / 16), share)), float(math.ceil(items / grid))


def pass_width(n, hv, sms):
    """The state pass's value channels per CTA (src/launch.cu)."""
    heads = n * hv
    return 32 if heads * (HEAD_DIM_V // 32) <= sms else 64 if heads * (HEAD_DIM_V // 64) <= sms else 128


def chunked_features(row, sms):
    """(1, phase-1 rounds, chain for w = 32, 64, 128, rounds of 128-channel CTAs) of the chunked
    model above."""
    t, n, hq, hv, longest = row["T"], row["N"], row["Hq"], row["Hv"], row["max_seqlen"]
    chunks = t + 63 * n  # 64 x an upper bound of the chunk count
    width = pass_width(n, hv, sms)
    chain = max(math.ceil(longest / 64), math.ceil(hv * (HEAD_DIM_V // width) * chunks / (64 * sms)))
    return (1.0, float(math.ceil(hq * chunks / (64 * sms))), *[float(chain if w == width else 0) for w in PASS_WIDTHS],
            float(math.ceil(n * hv / sms) if width == 128 else 0))


def recurrent_us(row, sms):
    """src/contract.cpp's recurrent estimate."""
    n, hv, length = row["N"], row["Hv"], float(row["max_seqlen"])
    items = n * hv * RECURRENT_SLICES
    if items <= sms:
        return 3.3 + 0.195 * length
    return 2.0 + math.ceil(items / (RECURRENT_CTAS_PER_SM * sms)) * max(RECURRENT_ROUND_FLOOR, 1.3 + 0.27 * length)


# src/contract.cpp's kChunked: (a, b, c32, c64, c128, r128), fitted to the H200's crossovers
# (docs/performance.md, "The chunked estimate per round of pass CTAs").
CONTRACT_CHUNKED = (4.321, 9.883, 2.128, 2.359, 3.246, 3.117)


def chunked_us(row, sms):
    """src/contract.cpp's chunked estimate (kChunked)."""
    return fitted_chunked_us(row, sms, CONTRACT_CHUNKED)


def solve(m, v):
    """x with m x = v (Gaussian elimination with partial pivoting)."""
    n = len(v)
    a = [list(m[i]) + [v[i]] for i in range(n)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[piv][col]) < 1e-300:
            raise ValueError("singular system: the rows do not determine the model")
        a[col], a[piv] = a[piv], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit(samples):
    """Parameters p minimising sum ((x . p - t) / t)^2 over samples (features x, x[0] = 1,
    measured t). A feature that is the same in every sample cannot be told from the constant
    (with one item per CTA, o is part of a), and one that is zero in every sample is not used:
    their parameters are 0."""
    width = len(samples[0][0])
    free = [0] + [i for i in range(1, width) if len({x[i] for x, _ in samples}) > 1]
    if len(samples) < len(free):
        raise ValueError(f"{len(samples)} rows for {len(free)} parameters")
    k = len(free)
    m = [[0.0] * k for _ in range(k)]
    v = [0.0] * k
    for x, t in samples:
        w = 1.0 / (t * t)
        for i in range(k):
            v[i] += w * x[free[i]] * t
            for j in range(k):
                m[i][j] += w * x[free[i]] * x[free[j]]
    params = [0.0] * width
    for i, value in zip(free, solve(m, v)):
        params[i] = value
    return params


def fused_us(row, sms, params, gva_pair=False, persistent=False, one_round=False):
    x = fused_features(row, sms)
    return sum(p * f for p, f in zip(params[fused_key(row, sms, gva_pair, persistent, one_round)], x))


def fitted_chunked_us(row, sms, params):
    return sum(p * f for p, f in zip(params, chunked_features(row, sms)))


def usable(row, algorithm):
    t = row.get(f"{algorithm}_us")
    return t is not None and not math.isnan(t) and t > 0


def contract_picks(rows, sms, params, recurrent=None, one_round=True):
    """kAuto's pick for each row that has a timed path, as src/contract.cpp makes it with the longest
    length as the hint: its chunked and recurrent estimates (`recurrent`: another recurrent estimate
    in their place), the fused estimates `params` by form key (fused_us, GVA pair and persistent
    forms apart), weighed by FUSED_MARGIN. `one_round`: the persistent forms also within one round
    of the SMs, as kernel_params.h has them since 3ef32d3 (False: the builds before, where one round
    took the one-item kernels). Returns (row, pick, best, regret) tuples, regret being the pick's
    measured time over the fastest path's."""
    picks = []
    for r in rows:
        timed = [a for a in ALGORITHMS if usable(r, a)]
        if not timed:
            continue
        est = {"chunked": chunked_us(r, sms), "recurrent": (recurrent or recurrent_us)(r, sms)}
        s, _, _ = fused_form(r["N"], r["Hv"], sms)
        est["fused"] = fused_us(r, sms, params, True, True, one_round) * FUSED_MARGIN[2 if s == 2 else 1]
        best = min(timed, key=lambda a: r[f"{a}_us"])
        pick = min(timed, key=lambda a: est[a])
        picks.append((r, pick, best, r[f"{pick}_us"] / r[f"{best}_us"]))
    return picks


def regret_summary(picks):
    """One line: how many shapes, the regrets' geomean and max, and each pick off the fastest path."""
    regrets = [g for _, _, _, g in picks]
    geo = math.exp(sum(math.log(x) for x in regrets) / len(regrets))
    off = [f"{r['name']} {pick} for {best} {g:.3f}" for r, pick, best, g in picks if g > 1.0]
    return f"{len(picks)} shapes, regret geomean {geo:.3f}, max {max(regrets):.3f}, {len(off)} off: " + "; ".join(off)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("crossovers", nargs="+", help="crossover.json files")
    p.add_argument("--sms", type=int, default=132, help="the SM count of the GPU that measured them")
    p.add_argument("--out", default="", help="write the fit and the report as JSON here")
    p.add_argument("--fused-margin", type=float, default=FUSED_MARGIN[2],
                   help="kAuto weighs the fused estimate of the 64-channel form by this factor (src/contract.cpp, kFusedMargin)")
    p.add_argument("--fused-margin-v128", type=float, default=FUSED_MARGIN[1],
                   help="the same for the 128-channel form (and its GVA pair)")
    p.add_argument("--gva-pair", action="store_true",
                   help="the crossovers were measured on a build with the 128-channel form's GVA pair: fit it apart")
    p.add_argument("--persistent", action="store_true",
                   help="... and with that form on persistent CTAs: fit it apart")
    p.add_argument("--persistent-one-round", action="store_true",
                   help="... where the persistent forms run within one round of the SMs too")
    args = p.parse_args(argv)

    rows = []
    for path in args.crossovers:
        with open(path) as f:
            rows += json.load(f)["rows"]
    params = {}
    for key in FORM_ORDER:
        samples = [(fused_features(r, args.sms), r["fused_us"]) for r in rows
                   if usable(r, "fused") and fused_key(r, args.sms, args.gva_pair, args.persistent, args.persistent_one_round) == key]
        if len(samples) >= 2:
            params[key] = fit(samples)
    for key, (a, c, o) in sorted(params.items(), key=lambda kv: FORM_ORDER.index(kv[0])):
        print(f"fused {FORM_NAMES[key]}: t = {a:.2f} + {c:.3f} blocks + {o:.2f} items/CTA us")
    chunked_samples = [(chunked_features(r, args.sms), r["chunked_us"]) for r in rows if usable(r, "chunked")]
    chunked_params = None
    try:
        chunked_params = fit(chunked_samples) if chunked_samples else None
    except ValueError as e:
        print(f"chunked model not fitted ({e}): src/contract.cpp's estimate is used")
    if chunked_params:
        a, b, *c, rounds = chunked_params
        print(f"chunked: t = {a:.2f} + {b:.3f} phase-1 rounds + chain x "
              + ", ".join(f"{x:.3f} (w {w})" for x, w in zip(c, PASS_WIDTHS)) + f" + {rounds:.3f} rounds of CTAs (w 128) us")
        errors = [abs(fitted_chunked_us(r, args.sms, chunked_params) / t - 1) for r, t in
                  ((r, r["chunked_us"]) for r in rows if usable(r, "chunked"))]
        contract = [abs(chunked_us(r, args.sms) / r["chunked_us"] - 1) for r in rows if usable(r, "chunked")]
        print(f"chunked estimate's error: fitted mean {sum(errors) / len(errors):.1%} max {max(errors):.1%}; "
              f"src/contract.cpp's mean {sum(contract) / len(contract):.1%} max {max(contract):.1%}")

    estimates = {"recurrent": recurrent_us,
                 "chunked": (lambda r, sms: fitted_chunked_us(r, sms, chunked_params)) if chunked_params else chunked_us}
    report, regrets = [], []
    print(f"{'shape':18s} {'T':>6s} {'N':>5s} {'Hv':>3s} "
          + " ".join(f"{a[:5]:>7s} {'est':>7s}" for a in ALGORITHMS) + "  best      pick      regret")
    for r in rows:
        timed = [a for a in ALGORITHMS if usable(r, a)]
        if not timed:
            continue
        est = {a: estimates[a](r, args.sms) for a in ("chunked", "recurrent")}
        s, _, _ = fused_form(r["N"], r["Hv"], args.sms)
        key = fused_key(r, args.sms, args.gva_pair, args.persistent, args.persistent_one_round)
        est["fused"] = (fused_us(r, args.sms, params, args.gva_pair, args.persistent, args.persistent_one_round)
                        if key in params else float("nan"))
        best = min(timed, key=lambda a: r[f"{a}_us"])
        candidates = [a for a in timed if not math.isnan(est[a])]
        margin = args.fused_margin if s == 2 else args.fused_margin_v128
        weighed = {a: est[a] * (margin if a == "fused" else 1.0) for a in candidates}
        pick = min(candidates, key=lambda a: weighed[a]) if candidates else best
        regret = r[f"{pick}_us"] / r[f"{best}_us"]
        regrets.append(regret)
        report.append({"name": r["name"], "best": best, "pick": pick, "regret": regret, "fused_slices": s, "fused_form": key,
                       **{f"{a}_us": r.get(f"{a}_us") for a in ALGORITHMS},
                       **{f"{a}_est_us": est[a] for a in ALGORITHMS}})
        cells = " ".join(f"{r.get(f'{a}_us', float('nan')):7.1f} {est[a]:7.1f}" for a in ALGORITHMS)
        print(f"{r['name']:18s} {r['T']:6d} {r['N']:5d} {r['Hv']:3d} {cells}  {best:9s} {pick:9s} {regret:6.3f}")
    if regrets:
        geo = math.exp(sum(math.log(x) for x in regrets) / len(regrets))
        print(f"{len(regrets)} shapes: regret geomean {geo:.3f}, max {max(regrets):.3f}, "
              f"{sum(x > 1.0 for x in regrets)} shapes off the fastest")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"sms": args.sms, "fused_params": {str(k): v for k, v in params.items()},
                       "chunked_params": chunked_params, "rows": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
