"""Share of fused blocks that the range rule sends to the exact path, by block length (CPU, numpy).

The fused path forms A = Kb Kinv^T on tensor cores only where every key channel of the block has
sum_t |k_t / r_t| <= 2^90 (kMaxKinv in src/kernels/fused.cuh; r_t: the decays' running product
from the block's first token through t); a block where any channel fails takes the exact path.
This counts that share for blocks of 16 tokens (the kernels' kBlk) and of longer blocks, on the
model-like inputs of python/gdn2/testing.py (kind="model": the same distributions of k and g,
drawn here with numpy, so not the same numbers). The other half of the rule, on |Kb| and |Qg|,
cannot fail for these inputs (|k|, |q| <= 1, r <= 1).

usage: python3 bench/range_rule_share.py [--tokens 4096] [--heads 16] [--blocks 16,32] [--seed 0]
"""

import argparse

import numpy as np

K = 128
LOG_MAX_KINV = 90 * np.log(2.0)  # kMaxKinv = 2^90


def model_k_g(tokens, heads, seed):
    """k (L2-normalised over K) and g = -exp(A_log) softplus(x + dt_bias), as testing.py's "model"."""
    rng = np.random.default_rng(seed)
    a_log = np.log(1.0 + 15.0 * rng.random((heads, 1)))
    dt = np.exp(np.log(1e-3) + (np.log(1e-1) - np.log(1e-3)) * rng.random((heads, K)))
    dt_bias = dt + np.log(-np.expm1(-dt))  # softplus^-1(dt)
    g = -np.exp(a_log) * np.logaddexp(0.0, rng.standard_normal((tokens, heads, K)) + dt_bias)
    k = rng.standard_normal((tokens, heads, K))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    return k, g


def exact_share(k, g, blk):
    """Share of the (block, key head) pairs of `blk` tokens in which some channel fails the rule."""
    tokens, heads, _ = g.shape
    nb = tokens // blk
    log_r = np.cumsum(g[: nb * blk].reshape(nb, blk, heads, K), axis=1)
    log_k = np.log(np.abs(k[: nb * blk].reshape(nb, blk, heads, K)) + 1e-30)
    log_sum = np.logaddexp.reduce(log_k - log_r, axis=1)  # log sum_t |k_t| / r_t, per channel
    return float(1.0 - (log_sum <= LOG_MAX_KINV).all(axis=-1).mean())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, default=4096)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--blocks", default="16,32", help="block lengths, comma-separated")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    k, g = model_k_g(args.tokens, args.heads, args.seed)
    for blk in (int(x) for x in args.blocks.split(",")):
        print(f"{blk:3d}-token blocks: {100.0 * exact_share(k, g, blk):6.2f}% take the exact path")


if __name__ == "__main__":
    main()
