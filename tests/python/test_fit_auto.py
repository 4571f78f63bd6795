"""bench/fit_auto.py (kAuto's fused and chunked estimates fitted to measured crossovers): the fits recover
known models, and the report's picks and regrets follow the estimates. CPU only: runs in CI."""
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "fit_auto.py"
_spec = importlib.util.spec_from_file_location("fit_auto", SCRIPT)
fit_auto = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit_auto)

SMS = 132
# shapes of both fused forms: (T, N, Hv, longest); the v64 ones (2 N Hv <= 132) all fit in a wave
SHAPES = [(64, 1, 16, 64), (256, 1, 16, 256), (32, 1, 64, 32), (640, 4, 16, 160),
          (128, 128, 16, 1), (2048, 8, 16, 256), (4096, 64, 16, 64), (16384, 64, 32, 500),
          (700, 20, 16, 694), (512, 512, 1, 1)]


def rows_from(params):
    rows = []
    for i, (t, n, hv, longest) in enumerate(SHAPES):
        row = {"name": f"s{i}", "T": t, "N": n, "Hq": 16 if hv >= 16 else 1, "Hv": hv, "max_seqlen": longest}
        s, _, _ = fit_auto.fused_form(n, hv, SMS)
        row["fused_us"] = sum(p * x for p, x in zip(params[s], fit_auto.fused_features(row, SMS)))
        row["chunked_us"] = fit_auto.chunked_us(row, SMS) * 1.1
        row["recurrent_us"] = fit_auto.recurrent_us(row, SMS) * 0.9
        rows.append(row)
    return rows


def test_fit_recovers_a_known_model():
    params = {2: [6.0, 1.5, 0.0], 1: [4.0, 1.6, 0.7]}
    rows = rows_from(params)
    for s in (2, 1):
        samples = [(fit_auto.fused_features(r, SMS), r["fused_us"]) for r in rows
                   if fit_auto.fused_form(r["N"], r["Hv"], SMS)[0] == s]
        got = fit_auto.fit(samples)
        assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(got, params[s])), (s, got)


def test_gva_pair_is_a_form_of_its_own():
    """--gva-pair: the 128-channel form's rows with an even number of value heads per key head and
    128 tokens per sequence on average are fitted apart (key 0), as src/kernels/kernel_params.h's
    fused_gva_pair launches them; MHA rows, odd groups, shorter sequences and the 64-channel form
    keep their keys."""
    gva2 = {"T": 16384, "N": 8, "Hq": 16, "Hv": 32, "max_seqlen": 2048}
    gva3 = {"T": 16384, "N": 8, "Hq": 8, "Hv": 24, "max_seqlen": 2048}
    mha = {"T": 16384, "N": 8, "Hq": 16, "Hv": 16, "max_seqlen": 2048}
    one_wave = {"T": 1024, "N": 1, "Hq": 16, "Hv": 32, "max_seqlen": 1024}
    short = {"T": 8191, "N": 64, "Hq": 16, "Hv": 32, "max_seqlen": 256}   # 127.98 tokens on average
    mean128 = {"T": 8192, "N": 64, "Hq": 16, "Hv": 32, "max_seqlen": 256}
    rows = (gva2, gva3, mha, one_wave, short, mean128)
    assert [fit_auto.fused_key(r, SMS, True) for r in rows] == [0, 1, 1, 2, 1, 0]
    assert [fit_auto.fused_key(r, SMS) for r in rows] == [1, 1, 1, 2, 1, 1]
    params = {2: [6.0, 1.5, 0.0], 1: [4.0, 1.6, 0.7], 0: [5.0, 1.3, 0.4]}
    rows = []
    for t, n, hq, hv, longest in [(16384, 8, 16, 32, 2048), (16384, 4, 16, 32, 4096), (8192, 64, 16, 32, 256),
                                  (32768, 32, 16, 32, 1024), (4096, 128, 8, 32, 64), (16384, 8, 16, 16, 2048),
                                  (8192, 64, 16, 16, 500), (2048, 300, 16, 16, 40), (1024, 1, 16, 32, 1024),
                                  (512, 2, 16, 16, 256)]:
        row = {"name": f"{n}x{t}", "T": t, "N": n, "Hq": hq, "Hv": hv, "max_seqlen": longest}
        row["fused_us"] = fit_auto.fused_us(row, SMS, params, gva_pair=True)
        row["chunked_us"] = fit_auto.chunked_us(row, SMS)
        rows.append(row)
    for key in (2, 1, 0):
        samples = [(fit_auto.fused_features(r, SMS), r["fused_us"]) for r in rows
                   if fit_auto.fused_key(r, SMS, True) == key]
        got = fit_auto.fit(samples)
        assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(got, params[key])), (key, got)


def test_persistent_is_a_form_of_its_own():
    """--persistent: the 128-channel form's rows past one round of CTAs on at most 4,096 sequences,
    without the GVA pair, are fitted apart (key 3), as kernel_params.h's fused_persistent launched
    them until the persistent forms ran within one round too, and so are the GVA pair's past one
    round of its clusters (key 4, fused_gva_pair_persistent, at most 256 sequences); one round, more
    sequences and the 64-channel form keep their keys. With --persistent-one-round (today's
    kernel_params.h) one round takes keys 3 and 4 too."""
    mha = {"T": 16384, "N": 8, "Hq": 16, "Hv": 16, "max_seqlen": 2048}        # 128 items: one round
    batch = {"T": 16226, "N": 64, "Hq": 16, "Hv": 16, "max_seqlen": 512}      # 1024 items
    ones = {"T": 300, "N": 300, "Hq": 16, "Hv": 16, "max_seqlen": 1}          # index order
    many = {"T": 5000, "N": 5000, "Hq": 1, "Hv": 1, "max_seqlen": 1}         # past 4096 sequences
    at256 = {"T": 256, "N": 256, "Hq": 1, "Hv": 1, "max_seqlen": 1}           # 256 items, 256 sequences
    gva2 = {"T": 16384, "N": 16, "Hq": 16, "Hv": 32, "max_seqlen": 1024}      # the GVA pair
    short_gva2 = {"T": 1024, "N": 64, "Hq": 16, "Hv": 32, "max_seqlen": 16}   # no pair: persistent
    one_wave = {"T": 1024, "N": 1, "Hq": 16, "Hv": 32, "max_seqlen": 1024}
    pair_round = {"T": 4096, "N": 4, "Hq": 16, "Hv": 32, "max_seqlen": 1024}  # 64 clusters: one round
    pair_many = {"T": 40000, "N": 300, "Hq": 1, "Hv": 2, "max_seqlen": 200}  # the pair past 256 sequences
    rows = (mha, batch, ones, many, at256, gva2, short_gva2, one_wave, pair_round, pair_many)
    assert [fit_auto.fused_key(r, SMS, True, True) for r in rows] == [1, 3, 3, 1, 3, 4, 3, 2, 0, 0]
    assert [fit_auto.fused_key(r, SMS, True) for r in rows] == [1, 1, 1, 1, 1, 0, 1, 2, 0, 0]
    assert [fit_auto.fused_key(r, SMS, False, True) for r in rows] == [1, 3, 3, 1, 3, 3, 3, 2, 1, 3]
    # Since the persistent forms run within one round too (kernel_params.h): one round takes them.
    assert [fit_auto.fused_key(r, SMS, True, True, True) for r in rows] == [3, 3, 3, 1, 3, 4, 3, 2, 4, 0]


def test_chunked_fit_recovers_a_known_model():
    params = [8.0, 6.5, 2.2, 2.6, 7.5]  # constant, phase-1 rounds, chain for pass widths 32, 64, 128
    shapes = SHAPES + [(1024, 1, 32, 1024), (4096, 1, 16, 4096), (2048, 1, 64, 2048), (8192, 2, 16, 4096),
                       (16384, 8, 16, 2048)]
    samples = []
    for t, n, hv, longest in shapes:
        row = {"T": t, "N": n, "Hq": 16 if hv >= 16 else 1, "Hv": hv, "max_seqlen": longest}
        x = fit_auto.chunked_features(row, SMS)
        samples.append((x, sum(p * f for p, f in zip(params, x))))
    assert {fit_auto.pass_width(n, hv, SMS) for _, n, hv, _ in shapes} == {32, 64, 128}
    got = fit_auto.fit(samples)
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(got, params)), got


def test_the_form_follows_the_launch_rule():
    assert fit_auto.fused_form(1, 66, SMS) == (2, 132, 132)  # 2 N Hv = 132: one wave of v64
    assert fit_auto.fused_form(1, 67, SMS) == (1, 67, 67)    # past it: v128, one CTA per head
    assert fit_auto.fused_form(300, 1, SMS) == (1, 300, 132)  # at most one CTA per SM at a time
    assert [fit_auto.pass_width(1, hv, SMS) for hv in (33, 34, 66, 67)] == [32, 64, 64, 128]  # src/launch.cu


def test_report_picks_by_the_estimates(tmp_path):
    rows = rows_from({2: [6.0, 1.5, 0.0], 1: [4.0, 1.6, 0.7]})
    # make one shape's fastest algorithm one whose estimate is not the smallest: regret > 1
    rows[0]["recurrent_us"] = 0.5 * min(rows[0]["fused_us"], rows[0]["chunked_us"])
    path = tmp_path / "crossover.json"
    path.write_text(json.dumps({"meta": {}, "rows": rows}))
    out = tmp_path / "fit.json"
    result = subprocess.run([sys.executable, str(SCRIPT), str(path), "--out", str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    by_name = {r["name"]: r for r in report["rows"]}
    assert len(by_name) == len(SHAPES)
    for r in report["rows"]:  # kAuto's rule: the fused estimate weighed by the margin
        est = {a: r[f"{a}_est_us"] * (fit_auto.FUSED_MARGIN[r["fused_slices"]] if a == "fused" else 1.0)
               for a in fit_auto.ALGORITHMS}
        assert r["pick"] == min(est, key=est.get)
        assert math.isclose(r["regret"], r[f"{r['pick']}_us"] / r[f"{r['best']}_us"])
    assert by_name["s0"]["best"] == "recurrent" and by_name["s0"]["regret"] > 1.0
    assert "regret geomean" in result.stdout


def test_margin_is_kautos():
    """fit_auto's picks weigh the fused estimate as src/contract.cpp's choose_algorithm does."""
    import re
    source = (SCRIPT.parent.parent / "src" / "contract.cpp").read_text()
    margin = re.search(r"constexpr double kFusedMarginV64 = ([0-9.]+), kFusedMarginV128 = ([0-9.]+);", source)
    assert margin and float(margin.group(1)) == fit_auto.FUSED_MARGIN[2]
    assert float(margin.group(2)) == fit_auto.FUSED_MARGIN[1]


def test_chunked_estimate_is_kautos():
    """fit_auto's restatement of src/contract.cpp's chunked estimate (the regrets it reports with it
    and the error it prints for it) has kChunked's constants: it had kept an older formula."""
    import re
    source = (SCRIPT.parent.parent / "src" / "contract.cpp").read_text()
    chunked = re.search(r"constexpr ChunkedEstimate kChunked = \{([^}]*)\};", source)
    assert chunked
    assert tuple(float(x) for x in chunked.group(1).split(",")) == fit_auto.CONTRACT_CHUNKED
    # B8x2K-GVA2 on 132 SMs: 32 rounds of phase-1 items (16 x 16,888 / 64 / 132, rounded up), a
    # chain of 64 chunks on the 128-channel pass (32 x 16,888 / 64 / 132 > 2,048 / 64), 2 rounds of its CTAs
    row = {"T": 16384, "N": 8, "Hq": 16, "Hv": 32, "max_seqlen": 2048}
    a, b, _, _, c128, r128 = fit_auto.CONTRACT_CHUNKED
    assert math.isclose(fit_auto.chunked_us(row, SMS), a + b * 32 + c128 * 64 + r128 * 2)


def test_recurrent_estimate_is_kautos():
    """fit_auto's restatement of src/contract.cpp's recurrent estimate has its floor per round of
    CTAs (kRecurrentRoundFloor), which rounds of 1-token items hit."""
    import re
    source = (SCRIPT.parent.parent / "src" / "contract.cpp").read_text()
    floor = re.search(r"constexpr double kRecurrentRoundFloor = ([0-9.]+);", source)
    assert floor and float(floor.group(1)) == fit_auto.RECURRENT_ROUND_FLOOR
    # 512 one-token sequences of 16 heads on 132 SMs: 65,536 items, 249 rounds of 264 at the floor
    ones = {"T": 512, "N": 512, "Hq": 16, "Hv": 16, "max_seqlen": 1}
    assert math.isclose(fit_auto.recurrent_us(ones, SMS), 2.0 + 249 * fit_auto.RECURRENT_ROUND_FLOOR)
    # 64-token sequences: past the floor, 1.3 + 0.27 L per round
    long = {"T": 2048, "N": 32, "Hq": 16, "Hv": 16, "max_seqlen": 64}
    assert math.isclose(fit_auto.recurrent_us(long, SMS), 2.0 + 16 * (1.3 + 0.27 * 64))


def test_contract_picks_take_the_smallest_estimate():
    """contract_picks (the results folders' eval_refit.py): each row's pick is the path of the
    smallest estimate, its regret the pick's measured time over the fastest one's, and a path
    measured as NaN (not run) is never picked."""
    params = {2: (8.0, 1.2, 0.0), 1: (4.0, 2.0, 9.0), 0: (16.0, 1.5, 9.0), 3: (6.0, 1.8, 2.9), 4: (19.0, 1.5, 1.7)}
    ones = {"name": "512x1", "T": 512, "N": 512, "Hq": 16, "Hv": 16, "max_seqlen": 1}
    est_fused = fit_auto.fused_us(ones, SMS, params, True, True)
    assert est_fused < fit_auto.recurrent_us(ones, SMS) < fit_auto.chunked_us(ones, SMS)
    timed = dict(ones, chunked_us=900.0, recurrent_us=400.0, fused_us=500.0)  # the estimates' order is wrong here
    untimed = dict(ones, name="no-fused", chunked_us=900.0, recurrent_us=400.0, fused_us=float("nan"))
    picks = fit_auto.contract_picks([timed, untimed], SMS, params)
    assert [(p, b) for _, p, b, _ in picks] == [("fused", "recurrent"), ("recurrent", "recurrent")]
    assert math.isclose(picks[0][3], 500.0 / 400.0) and picks[1][3] == 1.0
    assert "2 shapes, regret geomean 1.118, max 1.250, 1 off: 512x1 fused for recurrent 1.250" == fit_auto.regret_summary(picks)
    # another recurrent estimate in place of contract.cpp's turns the pick
    picks = fit_auto.contract_picks([timed], SMS, params, recurrent=lambda r, sms: 0.0)
    assert picks[0][1] == "recurrent"
