// The chunked GDN2 forward in fp32, exactly as docs/algorithm.md writes it and the GPU kernels run
// it: per-token decay factors d in [0, 1], running products of them in token order (never a
// difference of cumulative sums, never a division), 64-token chunks, 16-row blocks, a running
// product per column on the diagonal blocks, the split at p = 16 I - 1 off the diagonal, forward
// substitution for T; or, for chunks whose factors stay in range, A and M from mid-block
// references (the GPU's tensor-core path, chosen by the same rule). Names follow the doc (d, P, Qg, Kb, Kend, gamma, A, M, T, R, U, O, S0, S1).
//
// Rows past the end of a short (tail) chunk are skipped: on the GPU they are zero keys and queries
// with d = 1, which contribute nothing to the real rows.
#include "reference/reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gdn2::reference {

float round_tf32(float x) {
  if (!std::isfinite(x)) return x;
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  b = (b + 0xFFFu + ((b >> 13) & 1u)) & 0xFFFFE000u;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

namespace {

constexpr int kChunk = 64;  // tokens per chunk
constexpr int kBlock = 16;  // rows per block of A and M
constexpr float kLog2e = 1.4426950408889634f;

float with_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
uint32_t bits_of(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}
// bf16: 7 mantissa bits, round to nearest, ties to even.
float round_bf16(float x) {
  if (!std::isfinite(x)) return x;
  const uint32_t b = bits_of(x);
  return with_bits((b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u);
}
// A value as it enters a tensor-core product: in phase 1 (off-diagonal blocks) TF32 unless fp32
// is asked for; in phase 2 the chosen format.
float phase1_operand(float x, OperandFormat f) { return f == OperandFormat::kFp32 ? x : round_tf32(x); }
float phase2_operand(float x, OperandFormat f) {
  return f == OperandFormat::kTf32 ? round_tf32(x) : f == OperandFormat::kBf16 ? round_bf16(x) : x;
}
// fp16: 10 mantissa bits, ties to even; below 2^-14 the subnormal grid of 2^-24 (ties to even as
// well, the default rounding mode); from 65520 on, infinity.
float round_fp16(float x) {
  if (!std::isfinite(x)) return x;
  if (std::fabs(x) >= 65520.0f) return std::copysign(INFINITY, x);
  if (std::fabs(x) < 0x1p-14f) return std::nearbyint(x * 0x1p24f) * 0x1p-24f;
  const uint32_t b = bits_of(x);
  return with_bits((b + 0xFFFu + ((b >> 13) & 1u)) & 0xFFFFE000u);
}
// The operands of a [rows][cols] matrix (row-major) as they enter phase 2's products: one scale
// group per row or per column for kFp16Scaled (reference.h), else every value on its own.
enum class ScaleGroup { kRows, kColumns };
void round_matrix(float* v, int rows, int cols, ScaleGroup group, OperandFormat f) {
  if (f != OperandFormat::kFp16Scaled) {
    for (int i = 0; i < rows * cols; ++i) v[i] = phase2_operand(v[i], f);
    return;
  }
  const bool by_row = group == ScaleGroup::kRows;
  const int groups = by_row ? rows : cols, size = by_row ? cols : rows;
  auto at = [&](int g, int i) -> float& { return by_row ? v[g * cols + i] : v[i * cols + g]; };
  for (int g = 0; g < groups; ++g) {
    float biggest = 0.0f;
    for (int i = 0; i < size; ++i) biggest = std::fmax(biggest, std::fabs(at(g, i)));
    if (biggest == 0.0f || !std::isfinite(biggest)) continue;
    int e2 = 0;
    std::frexp(biggest, &e2);  // biggest in [2^(e2 - 1), 2^e2)
    const int e = 15 - e2;     // biggest * 2^e in [2^14, 2^15)
    for (int i = 0; i < size; ++i) at(g, i) = std::ldexp(round_fp16(std::ldexp(at(g, i), e)), -e);
  }
}
void round_matrix(std::vector<float>& v, int rows, int cols, ScaleGroup group, OperandFormat f) {
  round_matrix(v.data(), rows, cols, group, f);
}

// Every decay factor the algorithm forms (a d, or a running product after each multiply) is noted
// here, so the stats prove the bound 0 <= factor <= 1 without a GPU. NaN and Inf are flagged.
void note_factor(float f, ChunkedStats* stats) {
  if (stats == nullptr) return;
  if (!std::isfinite(f)) stats->nonfinite_factor = true;
  if (f > stats->max_factor) stats->max_factor = f;
}

// r *= d, noted.
float times(float r, float d, ChunkedStats* stats) {
  r *= d;
  note_factor(r, stats);
  return r;
}

// d = 2^{min(g, 0) log2(e)}. fmaxf(NaN, -inf) = -inf, so a NaN g gives d = 0 (the channel is
// wiped) and g > 0 gives d = 1: d is always in [0, 1]. The only other exponential is gamma's.
float decay_log2(float g) { return fminf(fmaxf(g, -INFINITY), 0.0f) * kLog2e; }

float tracked_exp2(float x, ChunkedStats* stats) {
  const float d = exp2f(x);
  if (stats != nullptr) ++stats->exp2_calls;
  note_factor(d, stats);
  return d;
}

float decay_factor(float g, ChunkedStats* stats) { return tracked_exp2(decay_log2(g), stats); }

// Key-side inputs of one chunk, gathered from [T, Hq, K] into [len][K], and the per-token decay
// factors d_i of the chunk's tokens.
struct ChunkKeys {
  std::vector<float> q, k, bk, d;
  std::vector<float> log2_total;  // per channel: sum of the chunk's base-2 log decays, token order
  explicit ChunkKeys(int K)
      : q(kChunk * K), k(kChunk * K), bk(kChunk * K), d(kChunk * K), log2_total(K) {}
};

// Key-side factors of one chunk and key head, shared by every value head of the GVA group.
// Row-major; per-token rows are [len][K], A/M/T are [len][len] (only the lower part is used).
struct ChunkFactors {
  int len = 0;
  std::vector<float> Qg;     // q_i P(-1, i)
  std::vector<float> Kb;     // b_i k_i P(-1, i)
  std::vector<float> Kend;   // k_i P(i, last)
  std::vector<float> gamma;  // P(-1, last), [K]
  std::vector<float> A;      // strictly lower
  std::vector<float> M;      // lower, diagonal included
  std::vector<float> T;      // (I + A)^{-1}, unit lower

  explicit ChunkFactors(int K)
      : Qg(kChunk * K), Kb(kChunk * K), Kend(kChunk * K), gamma(K), A(kChunk * kChunk),
        M(kChunk * kChunk), T(kChunk * kChunk) {}
};

void gather_keys(const Problem& p, int64_t t0, int len, int kh, ChunkKeys& keys,
                 ChunkedStats* stats) {
  const int K = p.K;
  for (int c = 0; c < K; ++c) keys.log2_total[c] = 0.0f;
  for (int i = 0; i < len; ++i) {
    const size_t row = (static_cast<size_t>(t0 + i) * p.Hq + kh) * K;
    for (int c = 0; c < K; ++c) {
      keys.q[i * K + c] = p.q[row + c];
      keys.k[i * K + c] = p.k[row + c];
      keys.bk[i * K + c] = p.b[row + c] * p.k[row + c];
      keys.d[i * K + c] = decay_factor(p.g[row + c], stats);
      keys.log2_total[c] += decay_log2(p.g[row + c]);
    }
  }
}

// Qg and Kb from the forward running product P(-1, i) = d_0 ... d_i, per channel; gamma = P(-1, last).
void forward_products(const ChunkKeys& keys, int K, ChunkFactors& f, ChunkedStats* stats) {
  for (int c = 0; c < K; ++c) {
    float r = 1.0f;
    for (int i = 0; i < f.len; ++i) {
      r = times(r, keys.d[i * K + c], stats);
      f.Qg[i * K + c] = keys.q[i * K + c] * r;
      f.Kb[i * K + c] = keys.bk[i * K + c] * r;
    }
    // gamma from the summed log decays, not the product: a decay that rounds to 1 per token
    // (|g| < 3e-8) still counts over the chunk, and gamma's error compounds along the sequence.
    f.gamma[c] = tracked_exp2(keys.log2_total[c], stats);
  }
}

// Kend from the backward running product P(i, last) = d_{i+1} ... d_last, per channel.
void backward_products(const ChunkKeys& keys, int K, ChunkFactors& f, ChunkedStats* stats) {
  for (int c = 0; c < K; ++c) {
    float r = 1.0f;
    for (int i = f.len - 1; i >= 0; --i) {
      f.Kend[i * K + c] = keys.k[i * K + c] * r;
      r = times(r, keys.d[i * K + c], stats);
    }
  }
}

// Diagonal 16x16 blocks of A and M: no reference token lies between every i and j of a block, so
// column j carries x = k_j P(j, i) down its block, one multiply by d_i per row (as the GPU does,
// x *= d_i). M_jj = q_j . k_j, A_jj = 0. With stats, the factor P(j, i) itself is carried alongside
// and noted.
void diagonal_blocks(const ChunkKeys& keys, int K, ChunkFactors& f, ChunkedStats* stats) {
  const int n = f.len;
  std::vector<float> x(K), factor(K);
  for (int start = 0; start < n; start += kBlock) {
    const int end = (start + kBlock < n) ? start + kBlock : n;
    for (int j = start; j < end; ++j) {
      const float* qj = &keys.q[j * K];
      const float* kj = &keys.k[j * K];
      float m = 0.0f;
      for (int c = 0; c < K; ++c) {
        x[c] = kj[c];
        factor[c] = 1.0f;
        m += qj[c] * x[c];
      }
      f.A[j * n + j] = 0.0f;
      f.M[j * n + j] = m;
      for (int i = j + 1; i < end; ++i) {
        const float* di = &keys.d[i * K];
        const float* qi = &keys.q[i * K];
        const float* bki = &keys.bk[i * K];
        float a = 0.0f;
        m = 0.0f;
        for (int c = 0; c < K; ++c) {
          x[c] *= di[c];
          if (stats != nullptr) factor[c] = times(factor[c], di[c], stats);
          a += bki[c] * x[c];
          m += qi[c] * x[c];
        }
        f.A[i * n + j] = a;
        f.M[i * n + j] = m;
      }
    }
  }
}

// Off-diagonal blocks: row block I >= 1 against every column j < 16 I, split at p = 16 I - 1:
// P(j, i) = P(p, i) P(j, p), both in [0, 1]. Left_i = x_i P(p, i) (forward product from p + 1,
// x = b k for A and q for M) and Right_j = k_j P(j, p) (backward product from p); then
// A[I, 0:16I] = Left_b Right^T and M[I, 0:16I] = Left_q Right^T.
void off_diagonal_blocks(const ChunkKeys& keys, int K, ChunkFactors& f, ChunkedStats* stats,
                         OperandFormat fmt) {
  const int n = f.len;
  std::vector<float> left_b(kBlock * K), left_q(kBlock * K), right(kChunk * K);
  for (int start = kBlock; start < n; start += kBlock) {
    const int end = (start + kBlock < n) ? start + kBlock : n;
    const int p = start - 1;
    for (int c = 0; c < K; ++c) {
      float r = 1.0f;
      for (int i = start; i < end; ++i) {
        r = times(r, keys.d[i * K + c], stats);
        left_b[(i - start) * K + c] = phase1_operand(keys.bk[i * K + c] * r, fmt);
        left_q[(i - start) * K + c] = phase1_operand(keys.q[i * K + c] * r, fmt);
      }
      r = 1.0f;
      for (int j = p; j >= 0; --j) {
        right[j * K + c] = phase1_operand(keys.k[j * K + c] * r, fmt);
        r = times(r, keys.d[j * K + c], stats);
      }
    }
    for (int i = start; i < end; ++i) {
      const float* lb = &left_b[(i - start) * K];
      const float* lq = &left_q[(i - start) * K];
      for (int j = 0; j < start; ++j) {
        const float* rj = &right[j * K];
        float a = 0.0f, m = 0.0f;
        for (int c = 0; c < K; ++c) {
          a += lb[c] * rj[c];
          m += lq[c] * rj[c];
        }
        f.A[i * n + j] = a;
        f.M[i * n + j] = m;
      }
    }
  }
}

// A and M from mid-block references (docs/algorithm.md, "The mid-block reference"), the GPU's
// path for chunks whose factors are all in range; returns false (nothing written) otherwise. Rows
// past a tail chunk's end are padded as on the GPU: x = 0, d = 1. Row block I's reference is
// p_I = 16 I + 7; Left_i = x_i P(p_I, i) (1 / P(i, p_I) before p_I), Right_j = k_j P(j, p_I)
// (1 / P(p_I, j) after it), and A(i, j) = sum_c Left_b,i c_IJ Right_j with c_IJ = P(p_J, p_I).
constexpr int kMidRow = kBlock / 2 - 1;
constexpr float kMidMinDecay = 0x1p-64f;   // each half block's decay product must stay above this
constexpr float kMidMaxFactor = 0x1p+96f;  // and every scaled-up factor below this

bool mid_reference_products(const ChunkKeys& keys, int K, ChunkFactors& f, ChunkedStats* stats,
                            OperandFormat fmt) {
  constexpr int kBlocks = kChunk / kBlock;
  const int n = f.len;
  auto padded = [&](const std::vector<float>& v, int i, int c, float pad) { return i < n ? v[i * K + c] : pad; };
  std::vector<float> left_b(kChunk * K), left_q(kChunk * K), right(kChunk * K);
  std::vector<float> lo(kBlocks * K), hi(kBlocks * K);
  double biggest_scale = 0;
  // Running products of real rows are noted (merged into stats only if this path is taken); a
  // padded row's factor is 1 and not part of the chunk.
  ChunkedStats local;
  auto step = [&](float r, int row, int c) {
    return row < n ? times(r, keys.d[row * K + c], &local) : r;
  };
  for (int I = 0; I < kBlocks; ++I) {
    const int row0 = I * kBlock;
    for (int c = 0; c < K; ++c) {
      float r = 1.0f, biggest = 0.0f;  // r = P(row0 + i, p)
      for (int i = kMidRow; i >= 0; --i) {
        const int row = row0 + i;
        const float inv = 1.0f / r;
        left_q[row * K + c] = padded(keys.q, row, c, 0.0f) * inv;
        left_b[row * K + c] = padded(keys.bk, row, c, 0.0f) * inv;
        right[row * K + c] = padded(keys.k, row, c, 0.0f) * r;
        biggest = std::fmax(biggest, std::fmax(std::fabs(left_q[row * K + c]), std::fabs(left_b[row * K + c])));
        if (i > 0) r = step(r, row, c);
      }
      const float first = r;
      lo[I * K + c] = step(r, row0, c);
      r = 1.0f;  // P(p, row0 + i)
      for (int i = kMidRow + 1; i < kBlock; ++i) {
        const int row = row0 + i;
        r = step(r, row, c);
        left_q[row * K + c] = padded(keys.q, row, c, 0.0f) * r;
        left_b[row * K + c] = padded(keys.bk, row, c, 0.0f) * r;
        right[row * K + c] = padded(keys.k, row, c, 0.0f) * (1.0f / r);  // as the GPU: times a reciprocal
        biggest = std::fmax(biggest, std::fabs(right[row * K + c]));
      }
      hi[I * K + c] = r;
      // the same rule as the GPU (r is never NaN; a NaN input is dropped by fmax, as there)
      if (!(first >= kMidMinDecay && r >= kMidMinDecay && biggest <= kMidMaxFactor)) return false;
      biggest_scale = std::fmax(biggest_scale, 1.0 / std::fmin(first, r));
    }
  }
  if (stats != nullptr) {
    stats->max_factor = std::fmax(stats->max_factor, local.max_factor);
    stats->nonfinite_factor = stats->nonfinite_factor || local.nonfinite_factor;
    ++stats->mid_chunks;
    stats->max_mid_scale = std::fmax(stats->max_mid_scale, biggest_scale);
  }
  for (auto* v : {&left_b, &left_q, &right})
    for (float& x : *v) x = phase1_operand(x, fmt);
  std::vector<float> scaled(kBlock * K);
  for (int I = 0; I < kBlocks && I * kBlock < n; ++I) {
    for (int J = 0; J <= I; ++J) {
      // Right of block J times c_IJ (the GPU scales the B operand and rounds it again)
      for (int c = 0; c < K; ++c) {
        float x = lo[I * K + c], scale = 1.0f;
        for (int L = I - 1; L >= J; --L) {
          scale = x * hi[L * K + c];
          x *= hi[L * K + c] * lo[L * K + c];
        }
        for (int jj = 0; jj < kBlock; ++jj) {
          const float rv = right[(J * kBlock + jj) * K + c];
          scaled[jj * K + c] = I == J ? rv : phase1_operand(rv * scale, fmt);
        }
      }
      for (int i = I * kBlock; i < (I + 1) * kBlock && i < n; ++i) {
        for (int jj = 0; jj < kBlock; ++jj) {
          const int j = J * kBlock + jj;
          if (j > i || j >= n) continue;
          float a = 0.0f, m = 0.0f;
          for (int c = 0; c < K; ++c) {
            a += left_b[i * K + c] * scaled[jj * K + c];
            m += left_q[i * K + c] * scaled[jj * K + c];
          }
          f.A[i * n + j] = j < i ? a : 0.0f;
          f.M[i * n + j] = m;
        }
      }
    }
  }
  return true;
}

// T = (I + A)^{-1} by forward substitution, column by column:
// T_jj = 1, T_ij = -sum_{m=j}^{i-1} A_im T_mj for i > j.
void unit_lower_inverse(ChunkFactors& f, bool tf32_operands) {
  const int n = f.len;
  auto op = [&](float x) { return tf32_operands ? round_tf32(x) : x; };
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < j; ++i) f.T[i * n + j] = 0.0f;
    f.T[j * n + j] = 1.0f;
    for (int i = j + 1; i < n; ++i) {
      float s = 0.0f;
      for (int m = j; m < i; ++m) s += op(f.A[i * n + m]) * op(f.T[m * n + j]);
      f.T[i * n + j] = -s;
    }
  }
}

// Everything of one (chunk, key head) that does not depend on the values.
void chunk_factors(const Problem& p, int64_t t0, int len, int kh, ChunkKeys& keys,
                   ChunkFactors& f, ChunkedStats* stats, const Emulation& em) {
  const OperandFormat fmt = em.operands;
  f.len = len;
  gather_keys(p, t0, len, kh, keys, stats);
  forward_products(keys, p.K, f, stats);
  backward_products(keys, p.K, f, stats);
  if (!mid_reference_products(keys, p.K, f, stats, fmt)) {
    if (stats != nullptr) ++stats->exact_chunks;
    diagonal_blocks(keys, p.K, f, stats);
    off_diagonal_blocks(keys, p.K, f, stats, fmt);
  }
  unit_lower_inverse(f, em.tf32_inverse);
  // the factor block as phase 2 reads it (gamma stays fp32); the scale groups are the products'
  // output rows or columns: tokens of Qg and Kb, rows of M and T, key channels of Kend
  round_matrix(f.Qg, len, p.K, ScaleGroup::kRows, fmt);
  round_matrix(f.Kb, len, p.K, ScaleGroup::kRows, fmt);
  round_matrix(f.Kend, len, p.K, ScaleGroup::kColumns, fmt);
  round_matrix(f.M, len, len, ScaleGroup::kRows, fmt);
  round_matrix(f.T, len, len, ScaleGroup::kRows, fmt);
}

// Scratch of the value side of one chunk, [len][V] each.
struct ValueScratch {
  std::vector<float> R, U, O, S1, Sop;
  std::vector<float> Qo, So, Mo, Uo;  // Qg, S, M, U as they enter the output products
  ValueScratch(int K, int V)
      : R(kChunk * V), U(kChunk * V), O(kChunk * V), S1(K * V), Sop(K * V), Qo(kChunk * K), So(K * V),
        Mo(kChunk * kChunk), Uo(kChunk * V) {}
};

// Emulation::lookahead: the previous chunk of the sequence, its key side (per key head) and, per
// value head, its state and U as they entered its products.
struct PreviousKeys {
  bool valid = false;
  int len = 0;
  std::vector<float> Kend, gamma;
  explicit PreviousKeys(int K) : Kend(kChunk * K), gamma(K) {}
};
struct PreviousValues {
  std::vector<float> Sop, U;
  PreviousValues(int K, int V) : Sop(K * V), U(kChunk * V) {}
};

// O = scale (Q S0 + M U) for the n rows of a chunk from token t0 of value head h, into `out`:
// Q [n][K], S0 [K][V], M [n][n] (its lower part read), U [n][V]; O [n][V] is scratch.
void store_output(const Problem& p, int64_t t0, int h, int n, const float* Q, const float* S0, const float* M,
                  const float* U, float* O, float* out) {
  const int K = p.K, V = p.V;
  for (int i = 0; i < n; ++i) {
    float* Oi = &O[i * V];
    for (int v = 0; v < V; ++v) Oi[v] = 0.0f;
    for (int c = 0; c < K; ++c) {
      const float q = Q[i * K + c];
      const float* S0c = &S0[c * V];
      for (int v = 0; v < V; ++v) Oi[v] += q * S0c[v];
    }
    for (int j = 0; j <= i; ++j) {
      const float m = M[i * n + j];
      const float* Uj = &U[j * V];
      for (int v = 0; v < V; ++v) Oi[v] += m * Uj[v];
    }
    float* dst = out + (static_cast<size_t>(t0 + i) * p.Hv + h) * V;
    for (int v = 0; v < V; ++v) dst[v] = p.scale * Oi[v];
  }
}

// One chunk of one value head; S (the state, [K][V]) goes from S0 to S1 in place.
//   R = w.v - Kb S0;  U = T R;  O = scale (Qg S0 + M U);  S1 = gamma . S0 + Kend^T U
// With `prev` (Emulation::lookahead, not the sequence's first chunk), Kb S0 is formed one chunk
// ahead: (Kb diag(gamma')) S0' + C U' with C = Kb Kend'^T (primes: the previous chunk's).
void state_pass(const Problem& p, int64_t t0, int h, const ChunkFactors& f, std::vector<float>& S,
                ValueScratch& x, float* out, OperandFormat fmt, OperandFormat out_fmt,
                const PreviousKeys* prev_keys = nullptr, PreviousValues* prev = nullptr) {
  const int K = p.K, V = p.V, n = f.len;
  // S, R and U as they enter the products (the fp32 S itself carries on)
  x.Sop = S;
  round_matrix(x.Sop, K, V, ScaleGroup::kColumns, fmt);  // one group per value channel
  const bool ahead = prev_keys != nullptr && prev_keys->valid;
  for (int i = 0; i < n; ++i) {
    float* Ri = &x.R[i * V];
    for (int v = 0; v < V; ++v) Ri[v] = 0.0f;
    if (ahead) {
      for (int c = 0; c < K; ++c) {
        const float kbg = phase2_operand(f.Kb[i * K + c] * prev_keys->gamma[c], fmt);
        const float* Sc = &prev->Sop[c * V];
        for (int v = 0; v < V; ++v) Ri[v] += kbg * Sc[v];
      }
      for (int j = 0; j < prev_keys->len; ++j) {
        float cij = 0.0f;
        for (int c = 0; c < K; ++c) cij += f.Kb[i * K + c] * prev_keys->Kend[j * K + c];
        cij = phase2_operand(cij, fmt);
        const float* Uj = &prev->U[j * V];
        for (int v = 0; v < V; ++v) Ri[v] += cij * Uj[v];
      }
    } else {
      for (int c = 0; c < K; ++c) {
        const float kb = f.Kb[i * K + c];
        const float* S0c = &x.Sop[c * V];
        for (int v = 0; v < V; ++v) Ri[v] += kb * S0c[v];
      }
    }
    const size_t row = (static_cast<size_t>(t0 + i) * p.Hv + h) * V;
    for (int v = 0; v < V; ++v) Ri[v] = p.w[row + v] * p.v[row + v] - Ri[v];
  }
  round_matrix(x.R, n, V, ScaleGroup::kColumns, fmt);

  for (int i = 0; i < n; ++i) {
    float* Ui = &x.U[i * V];
    for (int v = 0; v < V; ++v) Ui[v] = 0.0f;
    for (int j = 0; j <= i; ++j) {
      const float t = f.T[i * n + j];
      const float* Rj = &x.R[j * V];
      for (int v = 0; v < V; ++v) Ui[v] += t * Rj[v];
    }
  }
  round_matrix(x.U, n, V, ScaleGroup::kColumns, fmt);

  // the output products' operands (Emulation::output_products)
  x.Qo.assign(f.Qg.begin(), f.Qg.begin() + n * K);
  x.So = x.Sop;
  x.Mo.assign(f.M.begin(), f.M.begin() + n * n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) x.Mo[i * n + j] = 0.0f;  // only the lower part is M
  x.Uo.assign(x.U.begin(), x.U.begin() + n * V);
  if (out_fmt != OperandFormat::kFp32) {
    round_matrix(x.Qo, n, K, ScaleGroup::kRows, out_fmt);
    round_matrix(x.So, K, V, ScaleGroup::kColumns, out_fmt);
    round_matrix(x.Mo, n, n, ScaleGroup::kRows, out_fmt);
    round_matrix(x.Uo, n, V, ScaleGroup::kColumns, out_fmt);
  }

  store_output(p, t0, h, n, x.Qo.data(), x.So.data(), x.Mo.data(), x.Uo.data(), x.O.data(), out);

  for (int c = 0; c < K; ++c) {
    float* S1c = &x.S1[c * V];
    const float gc = f.gamma[c];
    const float* S0c = &S[c * V];
    for (int v = 0; v < V; ++v) S1c[v] = gc * S0c[v];
    for (int i = 0; i < n; ++i) {
      const float ke = f.Kend[i * K + c];
      const float* Ui = &x.U[i * V];
      for (int v = 0; v < V; ++v) S1c[v] += ke * Ui[v];
    }
  }
  S.swap(x.S1);
  if (prev != nullptr) {  // this chunk's S0 and U as they entered its products, for the next
    prev->Sop = x.Sop;
    std::copy(x.U.begin(), x.U.begin() + static_cast<size_t>(n) * V, prev->U.begin());
  }
}

// Emulation::one_product: one chunk of one value head with the chain as one product. The key
// side's A = -Kend^T (T Kb) [K][K] and Q' = Qg - M (T Kb) [len][K] (per key head), then
//   Y = T (w.v);  O = scale (Q' S0 + M Y);  S1 = gamma . S0 + A S0 + Kend^T Y.
struct OneProductKeys {
  std::vector<float> TKb, A, Qp;
  explicit OneProductKeys(int K) : TKb(kChunk * K), A(static_cast<size_t>(K) * K), Qp(kChunk * K) {}
};

void one_product_keys(int K, const ChunkFactors& f, OneProductKeys& k, OperandFormat fmt) {
  const int n = f.len;
  for (int i = 0; i < n; ++i)  // T Kb, an operand of the two products after it
    for (int c = 0; c < K; ++c) {
      float sum = 0.0f;
      for (int j = 0; j <= i; ++j) sum += f.T[i * n + j] * f.Kb[j * K + c];
      k.TKb[i * K + c] = sum;
    }
  round_matrix(k.TKb.data(), n, K, ScaleGroup::kRows, fmt);
  for (int c = 0; c < K; ++c)
    for (int d = 0; d < K; ++d) {
      float sum = 0.0f;
      for (int i = 0; i < n; ++i) sum += f.Kend[i * K + c] * k.TKb[i * K + d];
      k.A[c * K + d] = -sum;
    }
  round_matrix(k.A.data(), K, K, ScaleGroup::kRows, fmt);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < K; ++c) {
      float sum = 0.0f;
      for (int j = 0; j <= i; ++j) sum += f.M[i * n + j] * k.TKb[j * K + c];
      k.Qp[i * K + c] = f.Qg[i * K + c] - sum;
    }
  round_matrix(k.Qp.data(), n, K, ScaleGroup::kRows, fmt);
}

void state_pass_one_product(const Problem& p, int64_t t0, int h, const ChunkFactors& f, const OneProductKeys& k,
                            std::vector<float>& S, ValueScratch& x, float* out, OperandFormat fmt) {
  const int K = p.K, V = p.V, n = f.len;
  x.Sop = S;
  round_matrix(x.Sop, K, V, ScaleGroup::kColumns, fmt);
  for (int i = 0; i < n; ++i) {  // w.v as it enters T's product (R's place)
    const size_t row = (static_cast<size_t>(t0 + i) * p.Hv + h) * V;
    for (int v = 0; v < V; ++v) x.R[i * V + v] = p.w[row + v] * p.v[row + v];
  }
  round_matrix(x.R, n, V, ScaleGroup::kColumns, fmt);
  for (int i = 0; i < n; ++i) {  // Y = T (w.v), in U's place
    float* Yi = &x.U[i * V];
    for (int v = 0; v < V; ++v) Yi[v] = 0.0f;
    for (int j = 0; j <= i; ++j) {
      const float t = f.T[i * n + j];
      for (int v = 0; v < V; ++v) Yi[v] += t * x.R[j * V + v];
    }
  }
  round_matrix(x.U, n, V, ScaleGroup::kColumns, fmt);
  store_output(p, t0, h, n, k.Qp.data(), x.Sop.data(), f.M.data(), x.U.data(), x.O.data(), out);
  for (int c = 0; c < K; ++c) {
    float* S1c = &x.S1[c * V];
    const float gc = f.gamma[c];
    for (int v = 0; v < V; ++v) S1c[v] = gc * S[c * V + v];
    for (int d = 0; d < K; ++d) {
      const float a = k.A[c * K + d];
      for (int v = 0; v < V; ++v) S1c[v] += a * x.Sop[d * V + v];
    }
    for (int i = 0; i < n; ++i) {
      const float ke = f.Kend[i * K + c];
      for (int v = 0; v < V; ++v) S1c[v] += ke * x.U[i * V + v];
    }
  }
  S.swap(x.S1);
}

// States cross the API as [V][K] (K contiguous); the chunk math holds them as [K][V].
void load_state(const Problem& p, int n, int h, std::vector<float>& S) {
  const int K = p.K, V = p.V;
  if (p.initial_state == nullptr) {
    for (float& s : S) s = 0.0f;
    return;
  }
  const float* src = p.initial_state + (static_cast<size_t>(n) * p.Hv + h) * V * K;
  for (int v = 0; v < V; ++v)
    for (int c = 0; c < K; ++c) S[c * V + v] = src[v * K + c];
}

void store_state(const Problem& p, int n, int h, const std::vector<float>& S, float* final_state) {
  const int K = p.K, V = p.V;
  float* dst = final_state + (static_cast<size_t>(n) * p.Hv + h) * V * K;
  for (int v = 0; v < V; ++v)
    for (int c = 0; c < K; ++c) dst[v * K + c] = S[c * V + v];
}

}  // namespace

void chunked_f32(const Problem& p, float* out, float* final_state, ChunkedStats* stats,
                 Emulation emulation) {
  const int K = p.K, V = p.V;
  const int group = p.Hv / p.Hq;
  ChunkKeys keys(K);
  ChunkFactors f(K);
  ValueScratch scratch(K, V);
  std::vector<std::vector<float>> states(group, std::vector<float>(static_cast<size_t>(K) * V));
  const bool lookahead = emulation.lookahead && emulation.operands != OperandFormat::kFp16Scaled;
  const bool one_product = emulation.one_product && !lookahead && emulation.operands != OperandFormat::kFp16Scaled;
  OneProductKeys one_keys(one_product ? K : 0);
  PreviousKeys prev_keys(K);
  std::vector<PreviousValues> prev(lookahead ? group : 0, PreviousValues(K, V));

  for (int n = 0; n < p.N; ++n) {
    const int64_t begin = p.cu_seqlens[n], end = p.cu_seqlens[n + 1];
    for (int kh = 0; kh < p.Hq; ++kh) {
      for (int r = 0; r < group; ++r) load_state(p, n, kh * group + r, states[r]);
      prev_keys.valid = false;
      for (int64_t t0 = begin; t0 < end; t0 += kChunk) {
        const int len = static_cast<int>((end - t0 < kChunk) ? end - t0 : kChunk);
        chunk_factors(p, t0, len, kh, keys, f, stats, emulation);
        if (one_product) {
          one_product_keys(K, f, one_keys, emulation.operands);
          for (int r = 0; r < group; ++r)
            state_pass_one_product(p, t0, kh * group + r, f, one_keys, states[r], scratch, out, emulation.operands);
          continue;
        }
        for (int r = 0; r < group; ++r)
          state_pass(p, t0, kh * group + r, f, states[r], scratch, out, emulation.operands,
                     emulation.output_products, lookahead ? &prev_keys : nullptr,
                     lookahead ? &prev[r] : nullptr);
        if (lookahead) {
          prev_keys.valid = true;
          prev_keys.len = len;
          std::copy(f.Kend.begin(), f.Kend.begin() + static_cast<size_t>(len) * K, prev_keys.Kend.begin());
          prev_keys.gamma = f.gamma;
        }
      }
      if (final_state != nullptr)
        for (int r = 0; r < group; ++r) store_state(p, n, kh * group + r, states[r], final_state);
    }
  }
}

}  // namespace gdn2::reference
