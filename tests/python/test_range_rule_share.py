"""bench/range_rule_share.py (the share of fused blocks that take the exact path, by block length):
the rule's bound on constructed decays, and the model-like inputs' shares. CPU only: runs in CI."""
import importlib.util
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("range_rule_share", ROOT / "bench" / "range_rule_share.py")
rr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rr)


def constant_decay(c, tokens=64, heads=2):
    k = np.full((tokens, heads, rr.K), 1.0 / np.sqrt(rr.K))
    return k, np.full((tokens, heads, rr.K), -c)


def test_no_decay_never_exact():
    k, g = constant_decay(0.0)
    assert rr.exact_share(k, g, 16) == 0.0 and rr.exact_share(k, g, 32) == 0.0


def test_the_bound_is_2_to_the_90():
    # sum_t |k_t| / r_t is dominated by the last token, e^(c blk) / sqrt(K): c = 3 passes over 16
    # tokens (e^48) and fails over 32 (e^96 > 2^90 = e^62.4).
    k, g = constant_decay(3.0)
    assert rr.exact_share(k, g, 16) == 0.0
    assert rr.exact_share(k, g, 32) == 1.0
    # Just past the bound over 16 tokens: c such that e^(16 c) / sqrt(K) = 2^91.
    c = (91 * np.log(2.0) + 0.5 * np.log(rr.K)) / 16
    k, g = constant_decay(c)
    assert rr.exact_share(k, g, 16) == 1.0


def test_model_inputs_longer_blocks_take_the_exact_path_more_often():
    k, g = rr.model_k_g(1024, 4, seed=0)
    s16, s32 = rr.exact_share(k, g, 16), rr.exact_share(k, g, 32)
    assert s16 < 0.02 < s32
