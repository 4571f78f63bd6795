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
