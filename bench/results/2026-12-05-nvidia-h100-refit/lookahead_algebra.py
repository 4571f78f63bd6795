"""Throwaway check (session of 2026-12-05 from 15:49, CPU only): the fused path's block algebra
(docs/algorithm.md, "The fused path") with the consumer chain's lookahead split of
docs/performance.md ("Where the remaining gap lies", item 7) against the tokenwise recurrence, in
fp64. For block n + 1 the first product X S_{n+1} (X = [Kb; Qg] of block n + 1, S the [K, V] state)
is formed as (X Diag(D_n)) S_n + (X Kend_n^T) U_n, from block n's starting state and its U.

    python3 lookahead_algebra.py        (numpy only)
"""
import numpy as np

K, V, B = 128, 64, 16


def tokenwise(q, k, v, w, b, d, s0, scale):
    s = s0.copy()
    out = np.zeros((len(q), V))
    for t in range(len(q)):
        s = d[t][:, None] * s
        u = w[t] * v[t] - s.T @ (b[t] * k[t])
        s = s + np.outer(k[t], u)
        out[t] = scale * s.T @ q[t]
    return out, s


def block_factors(q, k, b, d, scale):
    n = len(q)
    r = np.cumprod(d, axis=0)                      # r_i = d_0 ... d_i
    kb, qg = b * k * r, scale * q * r
    kend = np.zeros_like(k)
    for j in range(n):
        kend[j] = k[j] * np.prod(d[j + 1:], axis=0)
    a, p = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            f = np.prod(d[j + 1:i + 1], axis=0)
            if j < i:
                a[i, j] = np.sum(b[i] * k[i] * f * k[j])
            p[i, j] = scale * np.sum(q[i] * f * k[j])
    return kb, qg, kend, r[-1], np.linalg.inv(np.eye(n) + a), p


def blocks(q, k, v, w, b, d, s0, scale, lookahead):
    s, out = s0.copy(), []
    prev = None  # (Diag(D_n), Kend_n, S_n, U_n) of the block before, for the split
    for lo in range(0, len(q), B):
        sl = slice(lo, lo + B)
        kb, qg, kend, dd, t, p = block_factors(q[sl], k[sl], b[sl], d[sl], scale)
        x = np.vstack([kb, qg])
        if lookahead and prev is not None:
            d_prev, kend_prev, s_prev, u_prev = prev
            xs = (x * d_prev) @ s_prev + (x @ kend_prev.T) @ u_prev   # the split
        else:
            xs = x @ s
        n = len(kb)
        u = t @ (w[sl] * v[sl] - xs[:n])
        out.append(xs[n:] + p @ u)
        prev = (dd, kend, s, u)
        s = dd[:, None] * s + kend.T @ u
    return np.vstack(out), s


rng = np.random.default_rng(5)
for length, g_scale in ((64, 1.0), (57, 5.0), (40, 50.0)):
    q, k = rng.standard_normal((length, K)), rng.standard_normal((length, K))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    v, w = rng.standard_normal((length, V)), rng.uniform(0.5, 1.5, (length, V))
    b = rng.uniform(0.0, 1.0, (length, K))
    d = np.exp(-g_scale * rng.uniform(0.0, 1.0, (length, K)))
    s0 = rng.standard_normal((K, V))
    ref_o, ref_s = tokenwise(q, k, v, w, b, d, s0, K ** -0.5)
    for lookahead in (False, True):
        o, s = blocks(q, k, v, w, b, d, s0, K ** -0.5, lookahead)
        eo = np.linalg.norm(o - ref_o) / np.linalg.norm(ref_o)
        es = np.linalg.norm(s - ref_s) / np.linalg.norm(ref_s)
        print(f"{length} tokens, g ~ -{g_scale} U[0, 1], {'lookahead' if lookahead else 'blocks   '}: "
              f"output {eo:.2e}, final state {es:.2e}")
        assert eo < 1e-12 and es < 1e-12
print("the split reproduces the recurrence (fp64)")
