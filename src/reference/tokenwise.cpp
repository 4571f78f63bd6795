// The GDN2 recurrence token by token in fp64: the ground truth every other result is compared to.
// No clamp, no chunking, exp() of the raw decay (docs/algorithm.md, "The recurrence").
#include "reference/reference.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

namespace gdn2::reference {
namespace {

// One (sequence n, value head h): the state is held as S[v][k] (the [V, K] layout of
// initial_state), so each value channel is one contiguous row, and a token is one pass over the
// rows. Value channels are independent given the key side, so the row can be decayed, read at
// b*k, written and read at q in a single sweep.
void run_sequence_head(const Problem& p, int n, int h, double* out, double* final_state) {
  const int K = p.K, V = p.V;
  const int kh = h / (p.Hv / p.Hq);
  const size_t state_offset = (static_cast<size_t>(n) * p.Hv + h) * V * K;

  std::vector<double> S(static_cast<size_t>(V) * K, 0.0);
  if (p.initial_state != nullptr) {
    const float* s0 = p.initial_state + state_offset;
    for (size_t e = 0; e < S.size(); ++e) S[e] = s0[e];
  }

  std::vector<double> decay(K), bk(K), kk(K), qq(K);
  const double scale = p.scale;
  for (int64_t t = p.cu_seqlens[n]; t < p.cu_seqlens[n + 1]; ++t) {
    const size_t key_row = (static_cast<size_t>(t) * p.Hq + kh) * K;
    const size_t val_row = (static_cast<size_t>(t) * p.Hv + h) * V;
    for (int c = 0; c < K; ++c) {
      decay[c] = std::exp(static_cast<double>(p.g[key_row + c]));
      kk[c] = p.k[key_row + c];
      bk[c] = static_cast<double>(p.b[key_row + c]) * kk[c];
      qq[c] = p.q[key_row + c];
    }
    const float* vt = p.v + val_row;
    const float* wt = p.w + val_row;
    double* ot = out + val_row;
    for (int v = 0; v < V; ++v) {
      double* row = S.data() + static_cast<size_t>(v) * K;
      double read = 0.0;  // (S^T (b k))[v] after the decay
      for (int c = 0; c < K; ++c) {
        row[c] *= decay[c];
        read += row[c] * bk[c];
      }
      const double u = static_cast<double>(wt[v]) * vt[v] - read;
      double o = 0.0;  // (S^T q)[v] after the write
      for (int c = 0; c < K; ++c) {
        row[c] += kk[c] * u;
        o += row[c] * qq[c];
      }
      ot[v] = scale * o;
    }
  }

  if (final_state != nullptr) std::copy(S.begin(), S.end(), final_state + state_offset);
}

}  // namespace

void tokenwise_f64(const Problem& p, double* out, double* final_state, int threads) {
  const int pairs = p.N * p.Hv;
  if (pairs <= 0) return;
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min(threads, pairs));

  // Pairs are claimed one at a time: sequence lengths differ, so a static split would idle.
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int i = next.fetch_add(1); i < pairs; i = next.fetch_add(1))
      run_sequence_head(p, i / p.Hv, i % p.Hv, out, final_state);
  };
  if (threads == 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
}

}  // namespace gdn2::reference
