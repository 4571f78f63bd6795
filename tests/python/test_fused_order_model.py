"""bench/fused_order_model.py (CPU only): the list-scheduling model behind the fused path's
longest-first prediction."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import fused_order_model as m  # noqa: E402


def test_makespan():
    assert m.makespan([5.0, 1.0, 1.0, 1.0], 2) == 5.0
    assert m.makespan([1.0, 1.0, 1.0, 5.0], 2) == 6.0  # the long job last ends the schedule alone


def test_longest_first_never_later_on_s3_and_equal_on_equal_lengths():
    s3 = [m.makespan(m.cta_durations(m.S3, 16, 2.3, 6.0, lf), 132) for lf in (False, True)]
    assert s3[1] < s3[0]
    equal = [m.makespan(m.cta_durations((2048,) * 8, 16, 2.3, 6.0, lf), 132) for lf in (False, True)]
    assert equal[0] == equal[1]


def test_makespan_with_busy_machines():
    assert m.makespan([1.0, 1.0], 2, busy=[3.0]) == 3.0   # both on the free machine, the busy one ends last
    assert m.makespan([4.0], 2, busy=[3.0]) == 4.0


def test_mixed_forms_on_s3():
    # Nothing long: the mix is the 128-channel form alone.
    whole, mixed = m.mixed_forms(m.S3, 16, 10**6, 132, 1.94, 3.0, 8.19, 1.181)
    assert mixed == whole
    # The 694-token sequence in the pair form: its 32 CTAs end at 8.19 + 44 x 1.181; the rest
    # cannot end before its work spread over all SMs; both below S3 in the 128-channel form, whose
    # longest chain alone is 3.0 + 44 x 1.94.
    whole, mixed = m.mixed_forms(m.S3, 16, 600, 132, 1.94, 3.0, 8.19, 1.181)
    rest_work = sum(3.0 + 1.94 * -(-n // 16) for n in m.S3 if n < 600) * 16
    assert whole >= 3.0 + 44 * 1.94
    assert max(8.19 + 44 * 1.181, (rest_work + 32 * (8.19 + 44 * 1.181)) / 132) <= mixed < whole


def test_cut_bound_on_s2_by_hand():
    # 64 blocks; segments of at most 13 blocks: 16 x 64 value blocks + 16 x 51 identity blocks =
    # 1,840 over 132 SMs = 13.94 block times; 12 or 14 blocks give 14.06 and 14.
    bound, longest = m.cut_bound((1024,), 16, 16, 132)
    assert longest == 13
    assert abs(bound - 1840 / 132) < 1e-12


def test_cut_bound_between_the_value_work_and_the_uncut_form():
    for lengths, hv in (((64,), 16), (m.S3, 16), ((1024,), 64), ((2048,) * 8, 32), ((5, 700, 33), 48)):
        blocks = [-(-n // 16) for n in lengths]
        value_work = hv * sum(blocks) / 132
        bound, longest = m.cut_bound(lengths, 16, hv, 132)
        assert value_work <= bound <= max(max(blocks), value_work)
        assert 1 <= longest <= max(blocks)


def test_target_rows_floor_and_lengths():
    rows = {r[0]: r for r in m.target_rows()}
    assert len(rows) == 13
    assert sum(rows["N64-MIXED-MHA"][1]) == 16226 and len(rows["N64-MIXED-MHA"][1]) == 64
    # docs/performance.md, "The two numbers of each row": L32K-MHA 1074.8 MB.
    name, lengths, hv, initial, final, _ = rows["L32K-MHA"]
    assert abs(m.floor_bytes(lengths, 16, hv, initial, final) / 1e6 - 1074.8) < 0.1
