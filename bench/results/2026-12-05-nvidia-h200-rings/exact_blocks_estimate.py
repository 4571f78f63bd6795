# CPU estimate (python3 exact_blocks_estimate.py SEED) of the fused path's exact-block fraction per key head for the "model" input family
# (testing.make_inputs, same distributions, numpy's generator), with the kernel's vote rule:
# sum_t |k_t / r_t| <= 2^90 per channel (r_t: product of the block's decays up to t).
import numpy as np, math, sys
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
H, K, L, N = 16, 128, 2048, 8
a_log = np.log(1 + 15 * rng.random((H, 1)))
dt = np.exp(math.log(1e-3) + (math.log(1e-1) - math.log(1e-3)) * rng.random((H, K)))
dt_bias = dt + np.log(-np.expm1(-dt))
res = np.zeros((N, H))
for s in range(N):
    x = rng.standard_normal((L, H, K)) + dt_bias
    g = -np.exp(a_log) * np.logaddexp(0, x)
    k = rng.standard_normal((L, H, K)); k /= np.linalg.norm(k, axis=-1, keepdims=True)
    lg2 = g * math.log2(math.e)
    cum = lg2.reshape(L // 16, 16, H, K).cumsum(1)
    kk = np.abs(k.reshape(L // 16, 16, H, K))
    with np.errstate(divide="ignore", over="ignore"):
        ki = kk * np.exp2(np.minimum(-cum, 1000))
    s_ki = ki.sum(1)  # [blocks, H, K]
    fail = ~(s_ki <= 2.0 ** 90)
    res[s] = fail.any(-1).mean(0)
print("A per head:", np.round(np.exp(a_log[:, 0]), 1).tolist())
print("exact fraction per head (mean over 8 sequences):", np.round(res.mean(0), 4).tolist())
print("overall:", res.mean().round(5), " max over (seq, head):", res.max().round(4))
