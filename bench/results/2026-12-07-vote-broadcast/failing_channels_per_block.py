"""How many key channels fail the fused path's range rule in a failing 16-token block, on inputs
drawn like testing.make_inputs(kind="model") with numpy (no torch on the CPU machine; other draws
than the GPU's, the same distribution): 64 key heads x 256 blocks. Session of 2026-12-07 from
06:09: 16384 blocks, 15 failing, 14 of them in 1 channel and 1 in 2.
usage: python3 failing_channels_per_block.py"""
import numpy as np, collections, math
rng = np.random.default_rng(1)
K=128; BLK=16
def softplus(x): return np.logaddexp(0, x)
hist = collections.Counter(); total=0; failing_blocks=0
for head in range(64):
    A = 1.0 + 15.0 * rng.random()
    dt = np.exp(math.log(1e-3) + (math.log(1e-1) - math.log(1e-3)) * rng.random(K))
    bias = dt + np.log(-np.expm1(-dt))
    nb = 256
    g = -A * softplus(rng.standard_normal((nb, BLK, K)) + bias)
    k = rng.standard_normal((nb, BLK, K)); k /= np.linalg.norm(k, axis=-1, keepdims=True)
    q = rng.standard_normal((nb, BLK, K)); q /= np.linalg.norm(q, axis=-1, keepdims=True)
    b = 1/(1+np.exp(-rng.standard_normal((nb, BLK, K))))
    d = np.exp(g).astype(np.float32)
    r = np.cumprod(d, axis=1, dtype=np.float32)
    with np.errstate(divide='ignore', over='ignore', invalid='ignore'):
        ski = np.abs(k / r).sum(axis=1)
    srow = (np.abs(b*k*r) + np.abs(q*r/math.sqrt(128))).sum(axis=1)
    ok = (ski <= 2.0**90) & (srow <= 2.0**30)
    f = (~ok).sum(axis=-1)
    total += nb
    for v in f.tolist():
        if v: hist[v] += 1; failing_blocks += 1
print(total, failing_blocks, sorted(hist.items()))
