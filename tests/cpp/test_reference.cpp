// CPU tests of the two references: the fp32 chunked mirror of docs/algorithm.md against the fp64
// tokenwise recurrence, and the factor bound the chunked form relies on (every decay factor it
// forms is a product of per-token factors d in [0, 1], so it is in [0, 1] too).
#include "reference/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace gdn2::reference {
namespace {

constexpr int kK = 128, kV = 128;

// Norm-relative tolerances of chunked_f32 against tokenwise_f64, one pair for every case (the
// strong-then-tiny decay and the extremes included). Worst measured (g++ 12, glibc exp2f):
// output 2.3e-6, final state 2.6e-6, both long_const_m1em8 (2048 tokens at g = -1e-8: fp32 rounds
// d = 1 - 1.4e-8 to exactly 1, so the decay of the carried state is off by up to 2048 * 1e-8
// relative; decay_const_m1em8, 200 tokens: 7.6e-7 / 1.0e-6). Every other case: output <= 3.0e-7
// (decay_const_0), state <= 2.8e-7 (decay_const_0); strong_then_weak 2.6e-7 / 1.2e-7.
// A wrong formula, a dropped token or a 1e-3 error in one input lands far above (see
// ToleranceCatchesSmallErrors).
constexpr double kTolOut = 1e-5;
constexpr double kTolState = 1e-5;

float round_to_bf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest, ties to even
  bits &= 0xFFFF0000u;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

enum class Inputs {
  kGentle,     // SPEC canonical: q~N(0,.03^2), k~N(0,.01^2), v~N(0,.1^2), b,w~U[0,1), S0~N(0,.005^2)
  kModelLike,  // q,k L2-normalised, v~N(0,1), b,w = sigmoid(N(0,1)), S0~N(0,.1^2)
};

enum class DecayKind {
  kUniform,   // g ~ U[param, 0]
  kConstant,  // g = param
  kSoftplus,  // g = -exp(A_log) softplus(x), A_log ~ U[0, ln 16] per (head, channel), x ~ N(-2, 2^2)
  kWipeMix,   // g ~ U[-1, 0], with g = -1e30 on whole tokens and on half the channels of others
  kStrongThenWeak,  // per 64 tokens: the first 32 at g = -20, the rest at g = param (tiny)
  kExtremes,  // per element one of -1e-8, -1e30, -3e38 (near -FLT_MAX), 0, U[-1,0], U[-50,0]
  kOutOfContract,  // U[-1, 0] with NaN, +Inf, -Inf, 1e30 and U[0, 5] sprinkled in (see below)
};

// Out-of-contract decays: the chunked mirror takes d = 2^{min(g, 0) log2 e} with NaN -> -inf, so
// g > 0 (and +Inf) acts as 0 and NaN (and -Inf) as a wipe of that channel. The recurrence itself
// has no such rule (exp(NaN) and exp(+big) poison or blow up the state), so these cases are
// compared against tokenwise_f64 run on this sanitised g: the mirror must stay finite and agree
// with it.
float sanitised_decay(float g) { return std::isnan(g) ? -INFINITY : std::fmin(g, 0.0f); }

struct Decay {
  DecayKind kind = DecayKind::kUniform;
  float param = -1.0f;
};

struct Case {
  std::string name;
  std::vector<int64_t> lengths;
  int Hq = 2, Hv = 2;
  Inputs inputs = Inputs::kModelLike;
  Decay decay;
  float b_const = -1.0f;  // < 0: random per Inputs, else every b equals this
  bool initial = true, final = true;
  uint64_t seed = 1;
};

// Owns the tensors of one problem.
struct Data {
  int Hq = 0, Hv = 0;
  std::vector<int64_t> cu;
  std::vector<float> q, k, g, b, v, w, s0;

  int64_t T() const { return cu.back(); }
  int N() const { return static_cast<int>(cu.size()) - 1; }

  Problem problem() const {
    Problem p;
    p.T = T();
    p.N = N();
    p.Hq = Hq;
    p.Hv = Hv;
    p.K = kK;
    p.V = kV;
    p.cu_seqlens = cu.data();
    p.q = q.data();
    p.k = k.data();
    p.g = g.data();
    p.b = b.data();
    p.v = v.data();
    p.w = w.data();
    p.initial_state = s0.empty() ? nullptr : s0.data();
    p.scale = 1.0f / std::sqrt(static_cast<float>(kK));
    return p;
  }
};

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

void l2_normalise_rows(std::vector<float>& x, int dim) {
  for (size_t r = 0; r < x.size(); r += dim) {
    double s = 0.0;
    for (int c = 0; c < dim; ++c) s += static_cast<double>(x[r + c]) * x[r + c];
    const float inv = static_cast<float>(1.0 / std::sqrt(s));
    for (int c = 0; c < dim; ++c) x[r + c] *= inv;
  }
}

Data make_data(const Case& cs) {
  std::mt19937_64 rng(cs.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  const bool gentle = cs.inputs == Inputs::kGentle;

  Data d;
  d.Hq = cs.Hq;
  d.Hv = cs.Hv;
  d.cu.push_back(0);
  for (int64_t len : cs.lengths) d.cu.push_back(d.cu.back() + len);
  const size_t T = static_cast<size_t>(d.T());
  const size_t key_size = T * cs.Hq * kK, val_size = T * cs.Hv * kV;

  d.q.resize(key_size);
  d.k.resize(key_size);
  d.b.resize(key_size);
  d.g.resize(key_size);
  for (auto& x : d.q) x = normal(rng) * (gentle ? 0.03f : 1.0f);
  for (auto& x : d.k) x = normal(rng) * (gentle ? 0.01f : 1.0f);
  if (!gentle) {
    l2_normalise_rows(d.q, kK);
    l2_normalise_rows(d.k, kK);
  }
  for (auto& x : d.b)
    x = cs.b_const >= 0.0f ? cs.b_const : (gentle ? uniform(rng) : sigmoid(normal(rng)));

  std::vector<float> a_log(static_cast<size_t>(cs.Hq) * kK);
  for (auto& a : a_log) a = uniform(rng) * std::log(16.0f);
  for (size_t e = 0; e < key_size; ++e) {
    const size_t t = e / (static_cast<size_t>(cs.Hq) * kK);
    const size_t c = e % kK;
    float& g = d.g[e];
    switch (cs.decay.kind) {
      case DecayKind::kUniform: g = cs.decay.param * uniform(rng); break;
      case DecayKind::kConstant: g = cs.decay.param; break;
      case DecayKind::kSoftplus:
        g = -std::exp(a_log[e % a_log.size()]) * softplus(-2.0f + 2.0f * normal(rng));
        break;
      case DecayKind::kWipeMix:
        g = -uniform(rng);
        if (t % 97 == 40 || (t % 97 == 70 && c % 2 == 0)) g = -1e30f;
        break;
      case DecayKind::kStrongThenWeak: g = (t % 64 < 32) ? -20.0f : cs.decay.param; break;
      case DecayKind::kExtremes: {
        const float u = uniform(rng);
        g = u < 0.15f   ? -1e-8f
            : u < 0.25f ? -1e30f
            : u < 0.35f ? -3e38f
            : u < 0.45f ? 0.0f
            : u < 0.75f ? -uniform(rng)
                        : -50.0f * uniform(rng);
        break;
      }
      case DecayKind::kOutOfContract: {
        const float u = uniform(rng);
        g = u < 0.04f   ? std::nanf("")
            : u < 0.08f ? INFINITY
            : u < 0.10f ? -INFINITY
            : u < 0.12f ? 1e30f
            : u < 0.25f ? 5.0f * uniform(rng)
                        : -uniform(rng);
        if (t % 53 == 20) g = std::nanf("");  // some whole tokens of NaN
        break;
      }
    }
  }

  d.v.resize(val_size);
  d.w.resize(val_size);
  for (auto& x : d.v) x = normal(rng) * (gentle ? 0.1f : 1.0f);
  for (auto& x : d.w) x = gentle ? uniform(rng) : sigmoid(normal(rng));

  for (auto* x : {&d.q, &d.k, &d.b, &d.v, &d.w})
    for (auto& e : *x) e = round_to_bf16(e);

  if (cs.initial) {
    d.s0.resize(static_cast<size_t>(d.N()) * cs.Hv * kV * kK);
    for (auto& x : d.s0) x = normal(rng) * (gentle ? 0.005f : 0.1f);
  }
  return d;
}

// ||x - ref|| / ||ref|| over the whole tensor.
double rel_error(const std::vector<float>& x, const std::vector<double>& ref) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double diff = x[i] - ref[i];
    num += diff * diff;
    den += ref[i] * ref[i];
  }
  return den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
}

bool all_finite(const std::vector<float>& x) {
  for (float e : x)
    if (!std::isfinite(e)) return false;
  return true;
}

bool all_finite(const std::vector<double>& x) {
  for (double e : x)
    if (!std::isfinite(e)) return false;
  return true;
}

struct Reference {
  std::vector<double> out, state;
};

Reference run_tokenwise(const Problem& p, bool final, int threads = 0) {
  Reference r;
  r.out.assign(static_cast<size_t>(p.T) * p.Hv * p.V, std::nan(""));
  if (final) r.state.assign(static_cast<size_t>(p.N) * p.Hv * p.V * p.K, std::nan(""));
  tokenwise_f64(p, r.out.data(), final ? r.state.data() : nullptr, threads);
  return r;
}

struct Chunked {
  std::vector<float> out, state;
  ChunkedStats stats;
};

Chunked run_chunked(const Problem& p, bool final) {
  Chunked c;
  // Poisoned, so an element never written shows up as NaN.
  c.out.assign(static_cast<size_t>(p.T) * p.Hv * p.V, std::nanf(""));
  if (final) c.state.assign(static_cast<size_t>(p.N) * p.Hv * p.V * p.K, std::nanf(""));
  chunked_f32(p, c.out.data(), final ? c.state.data() : nullptr, &c.stats);
  return c;
}

// The factor proof: every decay factor a chunked run formed was finite and <= 1, and the only
// exponentials were the per-token factors d (one per token, key head and key channel) and gamma
// (one per chunk, key head and key channel).
int64_t chunk_count(const Problem& p) {
  int64_t n = 0;
  for (int s = 0; s < p.N; ++s) n += (p.cu_seqlens[s + 1] - p.cu_seqlens[s] + 63) / 64;
  return n;
}
void expect_factors_bounded(const ChunkedStats& s, const Problem& p) {
  EXPECT_LE(s.max_factor, 1.0);
  EXPECT_FALSE(s.nonfinite_factor);
  EXPECT_EQ(s.exp2_calls, (p.T + chunk_count(p)) * p.Hq * p.K);
}

// tokenwise_f64 on g as the chunked algorithm reads it (identity for in-contract g).
Reference run_tokenwise_sanitised(const Data& d, bool final) {
  Data clean = d;
  for (auto& g : clean.g) g = sanitised_decay(g);
  return run_tokenwise(clean.problem(), final);
}

// ---------------------------------------------------------------------------------------------
// The fp64 reference against the recurrence written literally from SPEC.md (S as [K][V]).

void literal_recurrence(const Problem& p, std::vector<double>& out, std::vector<double>& state) {
  const int K = p.K, V = p.V;
  out.assign(static_cast<size_t>(p.T) * p.Hv * V, 0.0);
  state.assign(static_cast<size_t>(p.N) * p.Hv * V * K, 0.0);
  for (int n = 0; n < p.N; ++n) {
    for (int h = 0; h < p.Hv; ++h) {
      const int kh = h / (p.Hv / p.Hq);
      std::vector<double> S(static_cast<size_t>(K) * V, 0.0), u(V);
      const size_t s_off = (static_cast<size_t>(n) * p.Hv + h) * V * K;
      if (p.initial_state)
        for (int c = 0; c < K; ++c)
          for (int v = 0; v < V; ++v) S[c * V + v] = p.initial_state[s_off + v * K + c];
      for (int64_t t = p.cu_seqlens[n]; t < p.cu_seqlens[n + 1]; ++t) {
        const float* q = p.q + (t * p.Hq + kh) * K;
        const float* k = p.k + (t * p.Hq + kh) * K;
        const float* g = p.g + (t * p.Hq + kh) * K;
        const float* b = p.b + (t * p.Hq + kh) * K;
        const float* vv = p.v + (t * p.Hv + h) * V;
        const float* w = p.w + (t * p.Hv + h) * V;
        for (int c = 0; c < K; ++c)
          for (int v = 0; v < V; ++v) S[c * V + v] *= std::exp(static_cast<double>(g[c]));
        for (int v = 0; v < V; ++v) {
          double read = 0.0;
          for (int c = 0; c < K; ++c) read += S[c * V + v] * (static_cast<double>(b[c]) * k[c]);
          u[v] = static_cast<double>(w[v]) * vv[v] - read;
        }
        for (int c = 0; c < K; ++c)
          for (int v = 0; v < V; ++v) S[c * V + v] += static_cast<double>(k[c]) * u[v];
        for (int v = 0; v < V; ++v) {
          double o = 0.0;
          for (int c = 0; c < K; ++c) o += S[c * V + v] * q[c];
          out[(t * p.Hv + h) * V + v] = p.scale * o;
        }
      }
      for (int c = 0; c < K; ++c)
        for (int v = 0; v < V; ++v) state[s_off + v * K + c] = S[c * V + v];
    }
  }
}

TEST(Tokenwise, MatchesLiteralRecurrence) {
  Case cs;
  cs.lengths = {5, 70};
  cs.Hq = 1;
  cs.Hv = 2;
  cs.decay = {DecayKind::kUniform, -1.0f};
  const Data d = make_data(cs);
  const Problem p = d.problem();
  std::vector<double> out, state;
  literal_recurrence(p, out, state);
  const Reference r = run_tokenwise(p, true);
  double max_out = 0.0, max_state = 0.0;
  for (size_t i = 0; i < out.size(); ++i) max_out = std::fmax(max_out, std::fabs(r.out[i] - out[i]));
  for (size_t i = 0; i < state.size(); ++i)
    max_state = std::fmax(max_state, std::fabs(r.state[i] - state[i]));
  EXPECT_LE(max_out, 1e-12);
  EXPECT_LE(max_state, 1e-12);
  ASSERT_TRUE(all_finite(r.out));
}

TEST(Tokenwise, ThreadCountDoesNotChangeBits) {
  Case cs;
  cs.lengths = {33, 70, 1};
  cs.Hq = 1;
  cs.Hv = 3;
  const Data d = make_data(cs);
  const Problem p = d.problem();
  const Reference one = run_tokenwise(p, true, 1);
  const Reference many = run_tokenwise(p, true, 3);
  EXPECT_EQ(0, std::memcmp(one.out.data(), many.out.data(), one.out.size() * sizeof(double)));
  EXPECT_EQ(0, std::memcmp(one.state.data(), many.state.data(), one.state.size() * sizeof(double)));
}

// A -1e30 decay wipes the state exactly in fp64: the output right after is the token's own write.
TEST(Tokenwise, HugeDecayWipesTheState) {
  Case cs;
  cs.lengths = {3};
  cs.Hq = 1;
  cs.Hv = 1;
  Data d = make_data(cs);
  Data fresh = d;  // same tokens, the first two removed and no initial state
  for (int c = 0; c < kK; ++c) d.g[2 * kK + c] = -1e30f;
  const Reference wiped = run_tokenwise(d.problem(), true);
  fresh.cu = {0, 1};
  const size_t drop_k = 2 * kK, drop_v = 2 * kV;
  for (auto* x : {&fresh.q, &fresh.k, &fresh.g, &fresh.b}) x->erase(x->begin(), x->begin() + drop_k);
  for (auto* x : {&fresh.v, &fresh.w}) x->erase(x->begin(), x->begin() + drop_v);
  fresh.s0.clear();
  const Reference single = run_tokenwise(fresh.problem(), true);
  for (int v = 0; v < kV; ++v) EXPECT_EQ(wiped.out[2 * kV + v], single.out[v]);
  EXPECT_EQ(wiped.state, single.state);
}

// ---------------------------------------------------------------------------------------------
// chunked_f32 against tokenwise_f64.

class ChunkedVsTokenwise : public ::testing::TestWithParam<Case> {};

TEST_P(ChunkedVsTokenwise, MatchesAndBoundsFactors) {
  const Case& cs = GetParam();
  const Data d = make_data(cs);
  const Problem p = d.problem();
  const bool out_of_contract = cs.decay.kind == DecayKind::kOutOfContract;
  const Reference ref = out_of_contract ? run_tokenwise_sanitised(d, cs.final)
                                        : run_tokenwise(p, cs.final);
  const Chunked got = run_chunked(p, cs.final);

  ASSERT_TRUE(all_finite(ref.out));
  ASSERT_TRUE(all_finite(got.out)) << "NaN/Inf (or an unwritten element) in the output";
  const double err_out = rel_error(got.out, ref.out);
  double err_state = 0.0;
  if (cs.final) {
    ASSERT_TRUE(all_finite(ref.state));
    ASSERT_TRUE(all_finite(got.state)) << "NaN/Inf (or an unwritten element) in the final state";
    err_state = rel_error(got.state, ref.state);
  }
  std::printf("[ MEASURED ] %-22s out %.3e  state %.3e  max_factor %.9g  exp2_calls %lld\n",
              cs.name.c_str(), err_out, err_state, got.stats.max_factor,
              static_cast<long long>(got.stats.exp2_calls));
  EXPECT_LE(err_out, kTolOut);
  EXPECT_LE(err_state, kTolState);
  expect_factors_bounded(got.stats, p);
}

Case make_case(std::string name, std::vector<int64_t> lengths, Decay decay = {},
               Inputs inputs = Inputs::kModelLike) {
  Case cs;
  cs.name = std::move(name);
  cs.lengths = std::move(lengths);
  cs.decay = decay;
  cs.inputs = inputs;
  return cs;
}

std::vector<Case> all_cases() {
  const Decay u005{DecayKind::kUniform, -0.05f}, u1{DecayKind::kUniform, -1.0f},
      u5{DecayKind::kUniform, -5.0f}, u50{DecayKind::kUniform, -50.0f},
      c1000{DecayKind::kConstant, -1000.0f}, c2{DecayKind::kConstant, -2.0f},
      c0{DecayKind::kConstant, 0.0f}, soft{DecayKind::kSoftplus, 0.0f},
      wipe{DecayKind::kWipeMix, 0.0f}, tiny{DecayKind::kConstant, -1e-8f},
      c1e30{DecayKind::kConstant, -1e30f}, c3e38{DecayKind::kConstant, -3e38f},
      extremes{DecayKind::kExtremes, 0.0f}, bad{DecayKind::kOutOfContract, 0.0f},
      strong_weak{DecayKind::kStrongThenWeak, -2.2e-5f};
  std::vector<Case> cases;
  // Input families and decays.
  cases.push_back(make_case("gentle", {64, 130, 300}, u005, Inputs::kGentle));
  cases.push_back(make_case("gentle_decay50", {200}, u50, Inputs::kGentle));
  // the largest factors the mid-block path allows (2^63.5, MidReference below)
  cases.push_back(make_case("mid_limit_c5_5", {200, 37}, Decay{DecayKind::kConstant, -5.5f}));
  cases.push_back(make_case("decay_0p05", {200}, u005));
  cases.push_back(make_case("decay_1", {200}, u1));
  cases.push_back(make_case("decay_5", {200}, u5));
  cases.push_back(make_case("decay_50", {200}, u50));
  cases.push_back(make_case("decay_const_m2", {200}, c2));
  cases.push_back(make_case("decay_const_m1000", {200}, c1000));
  cases.push_back(make_case("decay_const_0", {200}, c0));
  cases.push_back(make_case("decay_softplus", {200}, soft));
  cases.push_back(make_case("decay_wipe_1e30", {300}, wipe));
  // Extremes of the contract g <= 0: tiny, huge, near -FLT_MAX, mixed; strong then tiny in a chunk.
  cases.push_back(make_case("decay_const_m1em8", {200}, tiny));
  cases.push_back(make_case("long_const_m1em8", {2048}, tiny));
  cases.push_back(make_case("decay_const_m1e30", {200}, c1e30));
  cases.push_back(make_case("decay_const_m3e38", {200}, c3e38));
  cases.push_back(make_case("decay_extremes_mix", {300}, extremes));
  cases.push_back(make_case("strong_then_weak", {63, 300}, strong_weak));
  // Out of contract (NaN, +-Inf, g > 0): finite, and equal to the recurrence on the sanitised g.
  cases.push_back(make_case("out_of_contract_g", {300}, bad));
  cases.push_back(make_case("out_of_contract_gentle", {200}, bad, Inputs::kGentle));
  // Erase gate at its ends.
  for (float bval : {0.0f, 1.0f})
    for (Decay dec : {u005, u5}) {
      Case cs = make_case(std::string("b") + (bval == 0.0f ? "0" : "1") +
                              (dec.param == u005.param ? "_decay_0p05" : "_decay_5"),
                          {200}, dec);
      cs.b_const = bval;
      cases.push_back(cs);
    }
  // Lengths: chunk edges, tails, long, many sequences.
  cases.push_back(make_case("len_1", {1}, u1));
  cases.push_back(make_case("len_64", {64}, u1));
  cases.push_back(make_case("len_65", {65}, u1));
  cases.push_back(make_case("len_63_65_1", {63, 65, 1}, u1));
  cases.push_back(make_case("len_130", {130}, u1));
  cases.push_back(make_case("len_32x1", std::vector<int64_t>(32, 1), u1));
  cases.push_back(make_case("long_decay_0p05", {2048}, u005));
  cases.push_back(make_case("long_decay_50", {2048}, u50));
  cases.push_back(make_case("long_const_m1000", {2048}, c1000));
  {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int64_t> len(1, 80);
    std::vector<int64_t> lengths(100);
    for (auto& l : lengths) l = len(rng);
    cases.push_back(make_case("n100_random_lengths", lengths, u1));
  }
  // GVA: value head h reads key head h / (Hv / Hq).
  for (int ratio : {1, 2, 3, 4}) {
    Case cs = make_case("gva" + std::to_string(ratio), {100}, u1);
    cs.Hq = 2;
    cs.Hv = 2 * ratio;
    cases.push_back(cs);
  }
  {
    Case cs = make_case("hq4_hv12", {97}, soft);
    cs.Hq = 4;
    cs.Hv = 12;
    cases.push_back(cs);
  }
  // Optional states: every combination.
  for (bool initial : {false, true})
    for (bool final : {false, true}) {
      Case cs = make_case(std::string("init") + (initial ? "1" : "0") + "_final" + (final ? "1" : "0"),
                          {63, 129}, u1);
      cs.initial = initial;
      cs.final = final;
      cases.push_back(cs);
    }
  for (size_t i = 0; i < cases.size(); ++i) cases[i].seed = 1000 + i;
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, ChunkedVsTokenwise, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& c) { return c.param.name; });

// The tolerances are tight enough to catch small mistakes: each perturbation below is far
// smaller than a wrong formula, and every one lands above them (measured values in comments).
TEST(ChunkedVsTokenwise, ToleranceCatchesSmallErrors) {
  Case cs = make_case("sensitivity", {130}, {DecayKind::kUniform, -0.05f});
  const Data d = make_data(cs);
  const Problem p = d.problem();
  const Reference ref = run_tokenwise(p, true);
  auto report = [&](const char* what, const Chunked& got) {
    const double eo = rel_error(got.out, ref.out), es = rel_error(got.state, ref.state);
    std::printf("[ MEASURED ] perturbed: %-34s out %.3e  state %.3e\n", what, eo, es);
    return std::make_pair(eo, es);
  };

  {
    Problem wrong = p;
    wrong.scale *= 1.001f;
    const double eo = report("scale x 1.001", run_chunked(wrong, true)).first;
    EXPECT_GT(eo, 10 * kTolOut);  // measured 1.0e-3
  }
  {
    Data wrong = d;
    for (int h = 0; h < cs.Hv; ++h)
      for (int v = 0; v < kV; ++v) wrong.w[(100 * cs.Hv + h) * kV + v] = 0.0f;
    const auto [eo, es] = report("write of token 100 dropped", run_chunked(wrong.problem(), true));
    EXPECT_GT(eo, 10 * kTolOut);    // measured 9.9e-2
    EXPECT_GT(es, 10 * kTolState);  // measured 1.0e-1
  }
  {
    Data wrong = d;
    for (auto& s : wrong.s0) s *= 1.01f;
    const auto [eo, es] = report("initial state x 1.01", run_chunked(wrong.problem(), true));
    EXPECT_GT(eo, 10 * kTolOut);    // measured 1.8e-3
    EXPECT_GT(es, 10 * kTolState);  // measured 1.4e-4
  }
  {
    Data wrong = d;
    for (int h = 0; h < cs.Hq; ++h)
      for (int c = 0; c < kK; ++c) wrong.g[(70 * cs.Hq + h) * kK + c] -= 1e-3f;
    const auto [eo, es] = report("g of token 70 off by -1e-3", run_chunked(wrong.problem(), true));
    EXPECT_GT(eo, 10 * kTolOut);    // measured 3.8e-4
    EXPECT_GT(es, 10 * kTolState);  // measured 1.9e-4
  }
}

// Tiny decays right after strong ones in the same chunk: the weak spot of the earlier form, which
// took 2^{G_i - G_j} from a prefix sum G of magnitude up to 1847, so G_i - G_j among the weak
// tokens carried the rounding of |G| (a few 1e-4 of error in the output). The running products of
// d in [0, 1] have no such cancellation: this case now meets the same tight tolerance as every other.
// Measured with these inputs (tiny g = -2.2e-5): output 2.7e-7, final state 1.3e-7 (the earlier
// form: 2.6e-4 / 3.7e-4).
TEST(ChunkedVsTokenwise, TinyDecayAfterStrongDecayInOneChunk) {
  Case cs = make_case("strong_then_weak_1h", {128}, {DecayKind::kStrongThenWeak, -2.2e-5f});
  cs.Hq = 1;
  cs.Hv = 1;
  cs.seed = 3;
  const Data d = make_data(cs);
  const Reference ref = run_tokenwise(d.problem(), true);
  const Chunked got = run_chunked(d.problem(), true);
  ASSERT_TRUE(all_finite(got.out));
  ASSERT_TRUE(all_finite(got.state));
  const double eo = rel_error(got.out, ref.out), es = rel_error(got.state, ref.state);
  std::printf("[ MEASURED ] %-22s out %.3e  state %.3e\n", cs.name.c_str(), eo, es);
  EXPECT_LE(eo, kTolOut);
  EXPECT_LE(es, kTolState);
  expect_factors_bounded(got.stats, d.problem());
}

// final_state fed back as initial_state continues the sequence: split 130 tokens as 70 + 60.
TEST(ChunkedVsTokenwise, FinalStateContinuesTheSequence) {
  Case cs = make_case("continuation", {130}, {DecayKind::kUniform, -1.0f});
  const Data whole = make_data(cs);
  const Reference ref = run_tokenwise(whole.problem(), true);

  auto slice = [&](int64_t from, int64_t to, const std::vector<float>& s0) {
    Data part = whole;
    part.cu = {0, to - from};
    const size_t kr = static_cast<size_t>(cs.Hq) * kK, vr = static_cast<size_t>(cs.Hv) * kV;
    for (auto* x : {&part.q, &part.k, &part.g, &part.b})
      *x = std::vector<float>(x->begin() + from * kr, x->begin() + to * kr);
    for (auto* x : {&part.v, &part.w})
      *x = std::vector<float>(x->begin() + from * vr, x->begin() + to * vr);
    part.s0 = s0;
    return part;
  };
  const Data first = slice(0, 70, whole.s0);
  const Chunked a = run_chunked(first.problem(), true);
  const Data second = slice(70, 130, a.state);
  const Chunked b = run_chunked(second.problem(), true);

  std::vector<float> out(a.out);
  out.insert(out.end(), b.out.begin(), b.out.end());
  EXPECT_LE(rel_error(out, ref.out), kTolOut);
  EXPECT_LE(rel_error(b.state, ref.state), kTolState);
  expect_factors_bounded(a.stats, first.problem());
  expect_factors_bounded(b.stats, second.problem());
}

TEST(ChunkedVsTokenwise, RepeatIsBitwiseEqual) {
  Case cs = make_case("repeat", {63, 65, 1}, {DecayKind::kSoftplus, 0.0f});
  const Data d = make_data(cs);
  const Chunked a = run_chunked(d.problem(), true), b = run_chunked(d.problem(), true);
  EXPECT_EQ(0, std::memcmp(a.out.data(), b.out.data(), a.out.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(a.state.data(), b.state.data(), a.state.size() * sizeof(float)));
  EXPECT_EQ(a.stats.exp2_calls, b.stats.exp2_calls);
}

// ---------------------------------------------------------------------------------------------
// Why the factor bound matters: the textbook split 2^{G_i} 2^{-G_j} of a chunk with g = -2.

TEST(FactorBound, NaiveFactorisationOverflowsInFloat) {
  const float g2 = -2.0f * 1.4426950408889634f;
  std::vector<float> G(64);
  for (int i = 0; i < 64; ++i) G[i] = (i == 0 ? 0.0f : G[i - 1]) + g2;

  int first_overflow = -1;
  for (int j = 0; j < 64 && first_overflow < 0; ++j)
    if (!std::isfinite(exp2f(-G[j]))) first_overflow = j;
  EXPECT_EQ(first_overflow, 44);  // token 45 of the chunk, as docs/algorithm.md says

  const int i = 63, j = 50;
  const float naive = exp2f(G[i]) * exp2f(-G[j]);  // 0 * inf
  // The form chunked_f32 uses: P(j, i) = d_{j+1} ... d_i, a running product of d = 2^{g log2 e}.
  const float d = exp2f(g2);
  float product = 1.0f;
  for (int t = j + 1; t <= i; ++t) product *= d;
  EXPECT_FALSE(std::isfinite(naive));
  EXPECT_TRUE(std::isfinite(product));
  EXPECT_NEAR(product, std::exp(-2.0 * (i - j)), 1e-5 * std::exp(-2.0 * (i - j)));

  // The chunked mirror on the same decay stays finite and exact.
  Case cs = make_case("const_m2", {64}, {DecayKind::kConstant, -2.0f});
  const Data dat = make_data(cs);
  const Reference ref = run_tokenwise(dat.problem(), true);
  const Chunked got = run_chunked(dat.problem(), true);
  ASSERT_TRUE(all_finite(got.out));
  ASSERT_TRUE(all_finite(got.state));
  EXPECT_LE(rel_error(got.out, ref.out), kTolOut);
  EXPECT_LE(rel_error(got.state, ref.state), kTolState);
  expect_factors_bounded(got.stats, dat.problem());
  // Every factor formed is d^n, n >= 1: the largest is d itself.
  EXPECT_EQ(got.stats.max_factor, static_cast<double>(d));
}

// The tracked maximum is a real maximum: with g = 0 every factor is exactly 1, and with g = -1000
// every d (and so every product, and gamma) underflows to exactly 0. Tail chunk (36 rows) included.
TEST(FactorBound, TrackedMaximumIsExact) {
  for (float g : {0.0f, -1000.0f}) {
    Case cs = make_case("const", {100}, {DecayKind::kConstant, g});
    const Data d = make_data(cs);
    const Chunked got = run_chunked(d.problem(), false);
    EXPECT_EQ(got.stats.max_factor, g == 0.0f ? 1.0 : 0.0) << "g = " << g;
    EXPECT_FALSE(got.stats.nonfinite_factor);
    EXPECT_EQ(got.stats.exp2_calls, (100LL + 2) * cs.Hq * kK);  // 100 tokens, 2 chunks
  }
}

// NaN and +-Inf in g never make a factor above 1 or non-finite (the comparison with the recurrence
// is in the out_of_contract_* cases): a NaN in the tracked factors would be flagged.
TEST(FactorBound, NonFiniteDecayGivesFiniteFactors) {
  for (float g : {std::nanf(""), INFINITY, -INFINITY, 1e30f, 3.0f}) {
    Case cs = make_case("const", {70}, {DecayKind::kConstant, g});
    const Data d = make_data(cs);
    const Chunked got = run_chunked(d.problem(), true);
    EXPECT_TRUE(all_finite(got.out)) << "g = " << g;
    EXPECT_TRUE(all_finite(got.state)) << "g = " << g;
    expect_factors_bounded(got.stats, d.problem());
    // g > 0 acts as 0 (every factor 1); NaN and -Inf as a wipe (every factor 0).
    EXPECT_EQ(got.stats.max_factor, (std::isnan(g) || g < 0.0f) ? 0.0 : 1.0) << "g = " << g;
  }
}

// Phase 1's two paths for A and M (docs/algorithm.md, "The mid-block reference"): the mirror applies
// the GPU's rule per chunk and key head. A constant decay just inside the rule (g = -5.5: the half
// blocks of 7 and 8 tokens decay by 2^-55.5 and 2^-63.5) takes the mid-block path, just outside it
// (g = -5.6: 2^-64.6) the exact one; either way the result matches the recurrence.
TEST(MidReference, ChosenByTheFactorRule) {
  struct Row {
    float g;
    bool mid;
  };
  for (const Row r : {Row{0.0f, true}, Row{-1.0f, true}, Row{-5.5f, true}, Row{-5.6f, false}, Row{-50.0f, false}}) {
    const Case cs = make_case("const", {100, 64}, {DecayKind::kConstant, r.g});
    const Data d = make_data(cs);
    const Problem p = d.problem();
    const Chunked got = run_chunked(p, true);
    const int64_t items = chunk_count(p) * cs.Hq;
    EXPECT_EQ(got.stats.mid_chunks, r.mid ? items : 0) << "g = " << r.g;
    EXPECT_EQ(got.stats.exact_chunks, r.mid ? 0 : items) << "g = " << r.g;
    if (r.mid) {
      EXPECT_GE(got.stats.max_mid_scale, 1.0) << "g = " << r.g;
      EXPECT_LE(got.stats.max_mid_scale, 0x1p64) << "g = " << r.g;
    }
    expect_factors_bounded(got.stats, p);
    const Reference ref = run_tokenwise(p, true);
    EXPECT_LE(rel_error(got.out, ref.out), kTolOut) << "g = " << r.g;
    EXPECT_LE(rel_error(got.state, ref.state), kTolState) << "g = " << r.g;
  }
}

// The operand formats (reference.h). With TF32 operands, as the GPU kernels run, the chunked mirror
// stays within the GPU tests' tolerances (output rounded to bf16 as the kernels write it, state in
// fp32), on the canonical inputs and on model-like ones; each format loses more than the finer one.
// The errors are printed: bf16 or scaled fp16 operands and a TF32 inverse are what-ifs of
// docs/performance.md.
TEST(OperandPrecision, Tf32WithinGpuTolerancesAndCoarserFormatsLoseMore) {
  struct Row {
    const char* name;
    Inputs inputs;
    Decay decay;
  };
  const Row rows[] = {{"gentle, g ~ U[-5, 0]", Inputs::kGentle, {DecayKind::kUniform, -5.0f}},
                      {"model-like, softplus decay", Inputs::kModelLike, {DecayKind::kSoftplus, 0.0f}}};
  struct Variant {
    const char* name;
    Emulation em;
  };
  const Variant variants[] = {{"fp32", {OperandFormat::kFp32, false}},
                              {"tf32", {OperandFormat::kTf32, false}},
                              {"bf16", {OperandFormat::kBf16, false}},
                              {"tf32 + tf32 inverse", {OperandFormat::kTf32, true}},
                              {"fp16, 2^e per row/col", {OperandFormat::kFp16Scaled, false}}};
  constexpr int kVariants = sizeof(variants) / sizeof(variants[0]);
  for (const Row& r : rows) {
    const Data d = make_data(make_case(r.name, {1024}, r.decay, r.inputs));
    const Problem p = d.problem();
    const Reference ref = run_tokenwise(p, true);
    double err_out[kVariants], err_state[kVariants];
    for (int v = 0; v < kVariants; ++v) {
      std::vector<float> out(ref.out.size()), state(ref.state.size());
      chunked_f32(p, out.data(), state.data(), nullptr, variants[v].em);
      for (float& x : out) x = round_to_bf16(x);
      err_out[v] = rel_error(out, ref.out);
      err_state[v] = rel_error(state, ref.state);
      std::printf("  operands %-19s %s, T=1024 Hq=Hv=%d: output %.3e (bf16-rounded), final state %.3e\n",
                  variants[v].name, r.name, p.Hv, err_out[v], err_state[v]);
    }
    EXPECT_LE(err_out[1], 4e-3) << r.name;
    EXPECT_LE(err_state[1], 3e-3) << r.name;
    EXPECT_GT(err_state[1], err_state[0]) << r.name;
    EXPECT_GT(err_state[2], err_state[1]) << r.name;
    // the inverse's rounding is applied (gentle keys make A so small that T rounds the same)
    if (r.inputs == Inputs::kModelLike) EXPECT_NE(err_state[3], err_state[1]) << r.name;
    EXPECT_LE(err_state[3], 3e-3) << r.name;
    // fp16 has TF32's 10 mantissa bits; with a power-of-two scale per group it loses only values
    // 2^-24 below their group's largest, so it stays within the tolerances (and near TF32)
    EXPECT_LE(err_out[4], 4e-3) << r.name;
    EXPECT_LE(err_state[4], 3e-3) << r.name;
  }
}

// The fp16 what-if (reference.h, kFp16Scaled) where decays are strong and where inputs lie far from
// 1 (q scaled by 2^-20, v by 2^20: Qg below fp16's normal range, the state above its largest value).
// The power-of-two scales follow each token's, channel's and value channel's magnitude, so the
// operands keep TF32's precision; unscaled fp16 would lose the last row. Printed beside TF32 for
// docs/performance.md.
TEST(OperandPrecision, Fp16ScaledKeepsTf32AccuracyUnderStrongDecaysAndFarMagnitudes) {
  struct Row {
    const char* name;
    Decay decay;
    float q_scale, v_scale;  // powers of two: bf16 inputs stay exact
  };
  const Row rows[] = {{"U[-50, 0]", {DecayKind::kUniform, -50.0f}, 1.0f, 1.0f},
                      {"wipe mix", {DecayKind::kWipeMix, 0.0f}, 1.0f, 1.0f},
                      {"strong then weak", {DecayKind::kStrongThenWeak, -1e-4f}, 1.0f, 1.0f},
                      {"extremes", {DecayKind::kExtremes, 0.0f}, 1.0f, 1.0f},
                      {"q 2^-20, v 2^20", {DecayKind::kSoftplus, 0.0f}, 0x1p-20f, 0x1p20f}};
  for (const Row& r : rows) {
    Data d = make_data(make_case(r.name, {512}, r.decay, Inputs::kModelLike));
    for (float& x : d.q) x *= r.q_scale;
    for (float& x : d.v) x *= r.v_scale;
    for (float& x : d.s0) x *= r.v_scale;
    const Problem p = d.problem();
    const Reference ref = run_tokenwise(p, true);
    double err_out[2], err_state[2];
    const OperandFormat formats[2] = {OperandFormat::kTf32, OperandFormat::kFp16Scaled};
    for (int v = 0; v < 2; ++v) {
      std::vector<float> out(ref.out.size()), state(ref.state.size());
      chunked_f32(p, out.data(), state.data(), nullptr, {formats[v], false});
      for (float& x : out) x = round_to_bf16(x);
      err_out[v] = rel_error(out, ref.out);
      err_state[v] = rel_error(state, ref.state);
      std::printf("  operands %-6s model-like, %-16s T=512 Hq=Hv=%d: output %.3e (bf16-rounded), final state %.3e\n",
                  v ? "fp16x2" : "tf32", r.name, p.Hv, err_out[v], err_state[v]);
    }
    EXPECT_LE(err_out[1], 4e-3) << r.name;
    EXPECT_LE(err_state[1], 3e-3) << r.name;
    EXPECT_LE(err_state[1], 1.25 * err_state[0]) << r.name;  // within a quarter of TF32's error
  }
}

// A row of the operand what-ifs below: its inputs, and powers of two on q and on v (and the initial
// state), which keep bf16 inputs exact.
struct ScaledRow {
  const char* name;
  int T;
  Decay decay;
  Inputs inputs;
  float q_scale, v_scale;
};
Data scaled_data(const ScaledRow& r) {
  Data d = make_data(make_case(r.name, {r.T}, r.decay, r.inputs));
  for (float& x : d.q) x *= r.q_scale;
  for (float& x : d.v) x *= r.v_scale;
  for (float& x : d.s0) x *= r.v_scale;
  return d;
}
// The rows of both: gentle and model-like inputs, strong decays, far magnitudes.
const ScaledRow kScaledRows[] = {
    {"gentle, g ~ U[-5, 0]", 1024, {DecayKind::kUniform, -5.0f}, Inputs::kGentle, 1.0f, 1.0f},
    {"model-like, softplus", 1024, {DecayKind::kSoftplus, 0.0f}, Inputs::kModelLike, 1.0f, 1.0f},
    {"model-like, U[-50, 0]", 512, {DecayKind::kUniform, -50.0f}, Inputs::kModelLike, 1.0f, 1.0f},
    {"model-like, extremes", 512, {DecayKind::kExtremes, 0.0f}, Inputs::kModelLike, 1.0f, 1.0f},
    {"model-like, q 2^-20, v 2^20", 512, {DecayKind::kSoftplus, 0.0f}, Inputs::kModelLike, 0x1p-20f, 0x1p20f}};

// The 16-bit what-if for the products beside the 32-channel pass's chain (reference.h,
// Emulation::output_products; docs/performance.md, "Probes of the 32-channel pass's chain"): Qg S
// and M U feed only the output, so 16-bit operands there must leave the final state bit for bit as
// TF32 has it. The output's errors are printed beside TF32's: bf16 and scaled fp16 stay within the
// GPU tests' tolerance, and scaled fp16 (TF32's mantissa) within a quarter of TF32's error.
TEST(OperandPrecision, SixteenBitOutputProductsLeaveTheStateAndStayWithinTheOutputTolerance) {
  const OperandFormat output_products[3] = {OperandFormat::kFp32, OperandFormat::kBf16, OperandFormat::kFp16Scaled};
  const char* names[3] = {"tf32", "tf32, Qg S and M U bf16", "tf32, Qg S and M U fp16x2"};
  for (const ScaledRow& r : kScaledRows) {
    const Data d = scaled_data(r);
    const Problem p = d.problem();
    const Reference ref = run_tokenwise(p, true);
    double err_out[3];
    std::vector<float> states[3];
    for (int v = 0; v < 3; ++v) {
      Emulation em;
      em.operands = OperandFormat::kTf32;
      em.output_products = output_products[v];
      std::vector<float> out(ref.out.size());
      states[v].resize(ref.state.size());
      chunked_f32(p, out.data(), states[v].data(), nullptr, em);
      for (float& x : out) x = round_to_bf16(x);
      err_out[v] = rel_error(out, ref.out);
      std::printf("  operands %-25s %-28s T=%d: output %.3e (bf16-rounded), final state %.3e\n", names[v], r.name,
                  r.T, err_out[v], rel_error(states[v], ref.state));
    }
    EXPECT_EQ(states[1], states[0]) << r.name;
    EXPECT_EQ(states[2], states[0]) << r.name;
    EXPECT_LE(err_out[1], 4e-3) << r.name;
    EXPECT_LE(err_out[2], 4e-3) << r.name;
    EXPECT_LE(err_out[2], 1.25 * err_out[0]) << r.name;
  }
}

// The rows of the chain's what-ifs below: the scaled rows, two more model-like ones, and
// "erasing", where the state cancels: every odd chunk repeats the even chunk's keys with b = 1 and
// v = 0, so that the delta rule erases what the chunk before wrote (S_c small against its two
// terms gamma S_{c-1} and Kend^T U_{c-1}).
std::vector<ScaledRow> chain_rows() {
  std::vector<ScaledRow> rows(std::begin(kScaledRows), std::end(kScaledRows));
  rows.push_back({"model-like, wipe mix", 512, {DecayKind::kWipeMix, 0.0f}, Inputs::kModelLike, 1.0f, 1.0f});
  rows.push_back({"model-like, strong then weak", 512, {DecayKind::kStrongThenWeak, -1e-4f}, Inputs::kModelLike, 1.0f, 1.0f});
  rows.push_back({"erasing", 512, {DecayKind::kUniform, -0.01f}, Inputs::kModelLike, 1.0f, 1.0f});
  return rows;
}

// The plain chain and a what-if of it (`what_if` sets it on an Emulation), each with fp32 and with
// TF32 operands (index 0: fp32, 1: fp32 what-if, 2: TF32, 3: TF32 what-if), on one of chain_rows:
// the outputs (bf16-rounded) and final states against the token-by-token reference, printed for
// docs/performance.md.
struct ChainRun {
  double err_out[4], err_state[4];
  std::vector<float> outs[4];  // fp32, before the bf16 rounding
};
ChainRun run_chain_what_if(const ScaledRow& r, const char* const (&names)[4], void (*what_if)(Emulation&)) {
  Data d = scaled_data(r);
  if (std::strcmp(r.name, "erasing") == 0) {
    const int64_t kq = int64_t(d.Hq) * kK, kv = int64_t(d.Hv) * kV;
    for (int64_t t = 0; t < d.T(); ++t)
      if ((t / 64) % 2 == 1) {
        for (int64_t c = 0; c < kq; ++c) d.k[t * kq + c] = d.k[(t - 64) * kq + c], d.b[t * kq + c] = 1.0f;
        for (int64_t c = 0; c < kv; ++c) d.v[t * kv + c] = 0.0f;
      }
  }
  const Problem p = d.problem();
  const Reference ref = run_tokenwise(p, true);
  ChainRun run;
  for (int v = 0; v < 4; ++v) {
    Emulation em;
    em.operands = v < 2 ? OperandFormat::kFp32 : OperandFormat::kTf32;
    if (v % 2 == 1) what_if(em);
    std::vector<float>& out = run.outs[v];
    std::vector<float> state(ref.state.size());
    out.resize(ref.out.size());
    chunked_f32(p, out.data(), state.data(), nullptr, em);
    std::vector<float> rounded(out);
    for (float& x : rounded) x = round_to_bf16(x);
    run.err_out[v] = rel_error(rounded, ref.out);
    run.err_state[v] = rel_error(state, ref.state);
    std::printf("  operands %-22s %-28s T=%d: output %.3e (bf16-rounded), final state %.3e\n", names[v], r.name, r.T,
                run.err_out[v], run.err_state[v]);
  }
  return run;
}

// What both what-ifs must keep: in fp32 a reassociation; with TF32 operands within the GPU tests'
// tolerances and within a quarter of the plain chain's error.
void expect_chain_accuracy(const ScaledRow& r, const ChainRun& run) {
  EXPECT_LE(run.err_state[1], 1e-5) << r.name;
  EXPECT_LE(run.err_out[3], 4e-3) << r.name;
  EXPECT_LE(run.err_state[3], 3e-3) << r.name;
  EXPECT_LE(run.err_out[3], 1.25 * run.err_out[2]) << r.name;
  EXPECT_LE(run.err_state[3], 1.25 * run.err_state[2]) << r.name;
}

// The chain's first product one chunk ahead (reference.h, Emulation::lookahead; docs/performance.md,
// "The first product one block ahead"): Kb_c S_c formed as (Kb_c gamma_{c-1}) S_{c-1} + C U_{c-1}.
// In fp32 it is the same sum reassociated, so it stays at fp32's error. With TF32 operands it rounds
// two products where the plain chain rounds one state, so it loses more where the state cancels
// ("erasing": the delta rule undoing the chunk before).
TEST(OperandPrecision, FirstProductOneChunkAhead) {
  const char* const names[4] = {"fp32", "fp32, one chunk ahead", "tf32", "tf32, one chunk ahead"};
  // The other sum was formed: outputs not bit for bit the plain chain's somewhere (not in every
  // row: where every chunk starts with strong decays, Kb S is below the output's precision).
  bool formed_otherwise = false;
  for (const ScaledRow& r : chain_rows()) {
    const ChainRun run = run_chain_what_if(r, names, [](Emulation& em) { em.lookahead = true; });
    formed_otherwise = formed_otherwise || run.outs[3] != run.outs[2];
    expect_chain_accuracy(r, run);
  }
  EXPECT_TRUE(formed_otherwise);
}

// The state's chain as one product per chunk (reference.h, Emulation::one_product): S1 = gamma S0 +
// A S0 + Kend^T Y, O = scale (Q' S0 + M Y), with A = -Kend^T T Kb and Q' = Qg - M T Kb formed in
// the key side. In fp32 it is the same sum reassociated. With TF32 operands it rounds A and Q'
// (formed from rounded factors) where the plain chain rounds R and U.
TEST(OperandPrecision, ChainAsOneProduct) {
  const char* const names[4] = {"fp32", "fp32, one product", "tf32", "tf32, one product"};
  for (const ScaledRow& r : chain_rows())
    expect_chain_accuracy(r, run_chain_what_if(r, names, [](Emulation& em) { em.one_product = true; }));
}

}  // namespace
}  // namespace gdn2::reference
