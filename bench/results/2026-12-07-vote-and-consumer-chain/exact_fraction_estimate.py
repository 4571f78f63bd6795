# The range rule's exact blocks per head on the benchmark's model-like distributions (numpy,
# not the GPU's draws): `python3 exact_fraction_estimate.py`. A block is exact where a channel's
# sum over its 16 tokens of |k_t| / r_t exceeds 2^90 (fused.cuh, kMaxKinv).
import numpy as np, math
def sim(T, hq, seed, K=128):
    rng = np.random.default_rng(seed)
    a = np.exp(np.log(1.0 + 15.0*rng.random((hq,1))))
    dt = np.exp(math.log(1e-3) + (math.log(1e-1)-math.log(1e-3))*rng.random((hq,K)))
    dt_bias = dt + np.log(-np.expm1(-dt))
    x = rng.standard_normal((T, hq, K))
    g = -a * np.logaddexp(0, x + dt_bias)
    k = rng.standard_normal((T, hq, K)); k /= np.linalg.norm(k, axis=-1, keepdims=True)
    nb = T // 16
    lg = (g / math.log(2)).reshape(nb, 16, hq, K)
    r = np.exp2(np.cumsum(lg, 1))
    with np.errstate(divide='ignore', over='ignore'):
        ki = (np.abs(k.reshape(nb,16,hq,K)) / r).sum(1)  # nb, hq, K
    badch = ki > 2.0**90
    bad = badch.any(-1)  # nb, hq
    return bad.mean(0), badch.sum(-1)[bad].mean() if bad.any() else 0, a.ravel()
for seed in range(6):
    f, nch, a = sim(2048, 16, seed)
    print("seed", seed, "per-head exact fraction max %.3f mean %.4f" % (f.max(), f.mean()), "failing channels per exact block %.2f" % nch, "A of worst head %.1f" % a[f.argmax()])
