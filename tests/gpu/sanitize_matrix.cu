// A matrix of gdn2::forward calls for compute-sanitizer (issue 4, deliverables 2 and 4): every
// kernel variant on small problems (the sanitizers are ~100x slower), through the public C++ API
// and the CUDA runtime only.
//
//   chunk_factors (phase 1)            every case of the chunked path
//   state_pass v32 / v64 / v128        chosen by N * Hv against the SM count (src/launch.cu); each
//                                      with all four state modes (initial_state and final_state on/off)
//   recurrent, fused v64 / v128        the one-launch paths (forced, or chosen by kAuto), all four
//                                      state modes, and their own fault paths for cu_seqlens
//   validate_values                    accepting valid values, and refusing bad ones
//   cu_seqlens int32 and int64, MHA and GVA 2/3/4, N = 1 / 32 / 100, tails, T = 1
//   state pools (initial_state_indices, final_state_indices): one pool updated in place, slots in
//     pages (a gap after each), new sequences (index -1); one index past the pool (its rows NaN, no
//     state touched); the pool allocated to its last slot's end, so memcheck sees any stray access
//   out-of-contract inputs without validate (validate_values must refuse each of them):
//     cu_seqlens decreasing and last != T; negative, beyond-T and extreme int64 offsets;
//     g NaN / +Inf / -Inf / > 0; b NaN, q Inf, w Inf, huge v
//
// Checks per case: every CUDA call succeeds; outputs (poisoned with 0xFF bytes before each call)
// are fully written and finite; a second call, on a workspace filled with 0xFF bytes (the library
// zeroes nothing: every workspace word it reads, it wrote earlier in the call), is bitwise equal.
// Out of contract, the behaviour
// README.md documents: inconsistent cu_seqlens -> every output row and every final state is NaN
// (written, not the poison); bad g -> everything finite, and bad b/q/v/w -> non-finite values only
// in the faulty sequence's rows of the value heads that read them (every other row and state
// bitwise equal to a run on clean inputs). One line per case; exit 1 on any failure.
//
// usage: gdn2_sanitize_matrix [--list] [--only=name,name] [--skip=name,name]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "gdn2/gdn2.h"

namespace {

constexpr int K = gdn2::kHeadDimK;
constexpr int V = gdn2::kHeadDimV;

// Deterministic pseudo-random numbers (splitmix64).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float symmetric() { return 2.f * uniform() - 1.f; }                     // [-1, 1)
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }
};

enum class Fault { kNone, kCuSeqlens, kDecay, kValues };

struct Case {
  std::string name;
  std::vector<int64_t> cu;  // offsets as the kernels see them (out of contract for kCuSeqlens)
  int64_t T = 0;
  int Hq = 0, Hv = 0;
  bool h0 = false, ht = false, cu64 = false, validate = false;
  float max_log_decay = 6.f;  // g in (-max_log_decay, -1e-3]; 60: most of the fused path's blocks take its exact path
  // > 0: max_log_decay only on the key channels c % strong_every == 5, 6 elsewhere (few channels
  // of a block fail the fused path's range rule).
  int strong_every = 0;
  Fault fault = Fault::kNone;
  // The chunked cases force kChunked (kAuto would send the smallest to a one-launch path).
  gdn2::Algorithm algorithm = gdn2::Algorithm::kChunked;
  // The path that runs: `algorithm`, or kAuto's pick on 132 SMs (src/contract.cpp, plan_launch).
  gdn2::Algorithm path = gdn2::Algorithm::kChunked;
  // States in a pool with indices, updated in place (kPooled; kPooledBf16 with a bf16 pool), and
  // one index past it (kBadIndex).
  enum class Pool { kNone, kPooled, kBadIndex, kPooledBf16 } pool = Pool::kNone;
  int64_t N() const { return int64_t(cu.size()) - 1; }
};

std::vector<int64_t> offsets_of(const std::vector<int64_t>& lengths) {
  std::vector<int64_t> cu = {0};
  for (int64_t n : lengths) cu.push_back(cu.back() + n);
  return cu;
}

std::vector<int64_t> random_lengths(int count, int64_t lo, int64_t hi, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> lengths(count);
  for (auto& n : lengths) n = rng.range(lo, hi);
  return lengths;
}

Case make_case(const char* name, std::vector<int64_t> cu, int Hq, int Hv, bool h0, bool ht, bool cu64,
               bool validate = false, Fault fault = Fault::kNone, int64_t T = -1) {
  Case c;
  c.name = name;
  c.T = T >= 0 ? T : cu.back();
  c.cu = std::move(cu);
  c.Hq = Hq, c.Hv = Hv, c.h0 = h0, c.ht = ht, c.cu64 = cu64, c.validate = validate, c.fault = fault;
  return c;
}

// A case of a one-launch path: `path` forced, or (auto) left to kAuto, which picks it.
Case one_launch_case(Case c, gdn2::Algorithm path, bool automatic = false) {
  c.algorithm = automatic ? gdn2::Algorithm::kAuto : path;
  c.path = path;
  return c;
}
Case recurrent_case(Case c, bool automatic = false) { return one_launch_case(c, gdn2::Algorithm::kRecurrent, automatic); }
Case fused_case(Case c, bool automatic = false) { return one_launch_case(c, gdn2::Algorithm::kFused, automatic); }

std::vector<Case> the_matrix() {
  std::vector<Case> m;
  // In-contract cases. On 132 SMs (H200; H100: 114-132) state_pass v32 when N * Hv * 4 <= SMs, else v64
  // when N * Hv * 2 <= SMs, else v128 (src/launch.cu). The v32 pass runs alongside phase 1
  // ("overlapped") where N = 1, Hv * 8 <= SMs and phase 1 has more items than SMs (512 tokens of
  // 16 heads: 160 items; 1280 tokens: 352). The v128 pass
  // takes the sequences longest first ("ordered", phase 1 ranks them) where N * Hv > SMs.
  m.push_back(make_case("mha-T1", {0, 1}, 1, 1, false, false, true));                        // v32
  m.push_back(make_case("mha-T1280", {0, 1280}, 16, 16, false, true, false));                // v32 overlapped
  m.push_back(make_case("mha-T512", {0, 512}, 16, 16, true, true, false));                   // v32 overlapped
  m.push_back(make_case("gva3-T65", {0, 65}, 4, 12, true, false, true));                     // v32
  m.push_back(make_case("gva3-65+63+1-validate", {0, 65, 128, 129}, 2, 6, true, true, false,
                        /*validate=*/true));                                                  // v32
  m.push_back(make_case("gva2-1x32", offsets_of(std::vector<int64_t>(32, 1)), 2, 4, false, true,
                        false));                                                              // v128
  m.push_back(make_case("gva2-rand100", offsets_of(random_lengths(100, 1, 80, 101)), 2, 4, true,
                        true, true));                                                         // v128 ordered
  m.push_back(make_case("gva4-rand15", offsets_of(random_lengths(15, 1, 100, 102)), 1, 4, false,
                        false, false));                                                       // v64
  m.push_back(make_case("mha-rand40", offsets_of(random_lengths(40, 1, 40, 103)), 2, 2, true,
                        false, true));                                                        // v128
  m.push_back(make_case("mha-rand30", offsets_of(random_lengths(30, 1, 150, 104)), 2, 2, true,
                        true, false));                                                        // v64
  m.push_back(make_case("gva4-rand12", offsets_of(random_lengths(12, 1, 200, 105)), 1, 4, false,
                        true, true));                                                         // v64
  m.push_back(make_case("gva2-rand20", offsets_of(random_lengths(20, 1, 130, 106)), 1, 2, true,
                        false, false));                                                       // v64
  m.push_back(make_case("gva2-rand70", offsets_of(random_lengths(70, 1, 90, 107)), 2, 4, false,
                        false, true));                                                        // v128 ordered

  // Out of contract, without validate (validate_values must refuse them).
  // Decreasing offsets and last != T.
  m.push_back(make_case("fault-cu", {0, 40, 30, 120, 100}, 2, 4, true, true, false, true,
                        Fault::kCuSeqlens, /*T=*/200));                                       // v32
  // int64 extremes: negative first offset, beyond T, INT64_MAX, INT64_MIN, decreasing, last != T.
  {
    std::vector<int64_t> cu(21);
    for (int i = 0; i <= 20; ++i) cu[i] = 30 * i;
    cu[0] = -5;
    cu[3] = std::numeric_limits<int64_t>::max();
    cu[4] = std::numeric_limits<int64_t>::min();
    cu[7] = 700;  // beyond T
    cu[10] = 250;  // decreasing (cu[9] = 270)
    cu[20] = 590;  // last != T
    m.push_back(make_case("fault-cu-extreme", cu, 2, 4, true, true, true, true, Fault::kCuSeqlens,
                          /*T=*/600));                                                        // v128
    // The same with 8 value heads: the v128 pass ordered by phase 1's ranks of these offsets.
    m.push_back(make_case("fault-cu-extreme-ordered", cu, 2, 8, true, true, true, true, Fault::kCuSeqlens,
                          /*T=*/600));                                                        // v128 ordered
  }
  // Overlapped: the pass checks cu_seqlens itself (last != T).
  m.push_back(make_case("fault-cu-overlapped", {0, 1250}, 16, 16, true, true, false, true,
                        Fault::kCuSeqlens, /*T=*/1280));                                      // v32 overlapped
  // Out-of-range log decays in sequence 0, key head 0: g NaN, +Inf, -Inf, > 0.
  m.push_back(make_case("fault-g", {0, 65, 128}, 2, 4, true, true, false, true, Fault::kDecay));
  // Non-finite / huge values in sequence 0, key head 0 and value head 0 only: b, q, v, w.
  m.push_back(make_case("fault-values", {0, 65, 128}, 2, 4, true, true, true, true, Fault::kValues));

  // The recurrent path: kAuto's choice on one sequence of 32 tokens and on 32 one-token sequences
  // (src/launch.cu),
  // forced on longer and mixed sequences, tails and GVA 2/3/4; and its own faults.
  using gdn2::Algorithm;
  m.push_back(recurrent_case(make_case("rec-auto-mha-T32", {0, 32}, 16, 16, false, false, false), true));
  m.push_back(recurrent_case(make_case("rec-auto-gva2-1x32", offsets_of(std::vector<int64_t>(32, 1)), 2, 4, false,
                                       true, true), true));
  m.push_back(recurrent_case(make_case("rec-gva3-65+63+1-validate", {0, 65, 128, 129}, 2, 6, true, true, false,
                                       /*validate=*/true)));
  m.push_back(recurrent_case(make_case("rec-mha-rand20", offsets_of(random_lengths(20, 1, 150, 108)), 2, 2, true,
                                       false, true)));
  m.push_back(recurrent_case(make_case("rec-gva4-T200", {0, 200}, 1, 4, false, false, false)));
  m.push_back(recurrent_case(make_case("fault-cu-rec", {0, 40, 30, 120, 100}, 2, 4, true, true, false, true,
                                       Fault::kCuSeqlens, /*T=*/200)));
  {
    std::vector<int64_t> cu(21);
    for (int i = 0; i <= 20; ++i) cu[i] = 30 * i;
    cu[0] = -5;
    cu[3] = std::numeric_limits<int64_t>::max();
    cu[4] = std::numeric_limits<int64_t>::min();
    cu[20] = 590;
    m.push_back(recurrent_case(make_case("fault-cu-extreme-rec", cu, 2, 4, true, true, true, true,
                                         Fault::kCuSeqlens, /*T=*/600)));
  }
  m.push_back(recurrent_case(make_case("fault-g-rec", {0, 65, 128}, 2, 4, true, true, false, true, Fault::kDecay)));
  m.push_back(recurrent_case(make_case("fault-values-rec", {0, 65, 128}, 2, 4, true, true, true, true,
                                       Fault::kValues)));

  // The fused path: kAuto's choice on one sequence of 64 tokens of 16 heads, forced on eight
  // 40-token sequences, longer and mixed ones, tails and GVA 2/3/4; its faults (the bad g case
  // also takes its exact path for A and P: an infinite decay). Its 64-channel form where
  // N * Hv * 2 <= SMs, else the 128-channel form (kernel_params.h, fused_slices): the cases
  // named v128 (N * Hv >= 68) take it on 132 SMs, each fault too, in its persistent kernel (and the
  // GVA pair's) up to 4,096 sequences (256 for the pair), within one round of the SMs as past it.
  // The -many, -strong and -unordered cases have more items than SMs (several rounds), with up to
  // 300 sequences, taken longest first on at most 256 sequences (fused.cuh, rank_sequences).
  m.push_back(fused_case(make_case("fused-auto-mha-T64", {0, 64}, 16, 16, false, false, false), true));
  m.push_back(fused_case(make_case("fused-gva2-8x40", offsets_of(std::vector<int64_t>(8, 40)), 2, 4, false, true, true)));
  m.push_back(fused_case(make_case("fused-gva3-65+63+1-validate", {0, 65, 128, 129}, 2, 6, true, true, false,
                                   /*validate=*/true)));
  m.push_back(fused_case(make_case("fused-mha-rand20", offsets_of(random_lengths(20, 1, 150, 109)), 2, 2, true,
                                   false, true)));
  m.push_back(fused_case(make_case("fused-gva4-T200", {0, 200}, 1, 4, false, false, false)));
  // The pair form (the 64-channel form's two CTAs of a head as a cluster, each forming every other
  // block): 19, 9, 2 and 1 blocks, so that each CTA's rings and the four slots wrap several times
  // and one CTA of a 1-block sequence forms nothing; gentle, then mostly exact blocks at both parities.
  m.push_back(fused_case(make_case("fused-pair-300+129+17+1", {0, 300, 429, 446, 447}, 2, 4, true, true, false)));
  Case pair_strong = make_case("fused-pair-strong-300+129+17+1", {0, 300, 429, 446, 447}, 2, 4, true, true, true);
  pair_strong.max_log_decay = 60.f;
  m.push_back(fused_case(pair_strong));
  Case pair_few = make_case("fused-pair-fewstrong-300+129+17+1", {0, 300, 429, 446, 447}, 2, 4, true, true, true);
  pair_few.max_log_decay = 60.f, pair_few.strong_every = 37;  // four strong channels of 128
  m.push_back(fused_case(pair_few));
  m.push_back(fused_case(make_case("fault-cu-fused", {0, 40, 30, 120, 100}, 2, 4, true, true, false, true,
                                   Fault::kCuSeqlens, /*T=*/200)));
  m.push_back(fused_case(make_case("fault-g-fused", {0, 65, 128}, 2, 4, true, true, false, true, Fault::kDecay)));
  m.push_back(fused_case(make_case("fault-values-fused", {0, 65, 128}, 2, 4, true, true, true, true,
                                   Fault::kValues)));
  m.push_back(fused_case(make_case("fused-v128-mha-rand40", offsets_of(random_lengths(40, 1, 150, 113)), 2, 2, true,
                                   true, false)));
  m.push_back(fused_case(make_case("fused-v128-gva4-T200", {0, 200}, 17, 68, false, false, true)));
  m.push_back(fused_case(make_case("fused-v128-gva2-34x40", offsets_of(std::vector<int64_t>(34, 40)), 1, 2, false, true,
                                   false)));
  // The GVA pair (the 128-channel form where each key head has an even number of value heads and the
  // sequences have 128 tokens on average: its two value heads' CTAs as a cluster, each forming every
  // other block; fused-v128-gva4-T200 above takes it too, fused-v128-gva2-34x40 the plain form):
  // 19, 9, 2, 1 and 19 blocks of 32 value heads on 8 key heads, mostly exact blocks at both
  // parities; and inconsistent cu_seqlens (every CTA of every pair fills NaN).
  Case gva_pair_strong = make_case("fused-gvapair-strong-300+129+17+1+300", {0, 300, 429, 446, 447, 747}, 8, 32, true,
                                   true, true);
  gva_pair_strong.max_log_decay = 60.f;
  m.push_back(fused_case(gva_pair_strong));
  Case gva_pair_few = make_case("fused-gvapair-fewstrong-300+129+17+1+300", {0, 300, 429, 446, 447, 747}, 8, 32, true,
                                true, true);
  gva_pair_few.max_log_decay = 60.f, gva_pair_few.strong_every = 37;  // four strong channels of 128
  m.push_back(fused_case(gva_pair_few));
  m.push_back(fused_case(make_case("fault-cu-fused-gvapair", {0, 140, 130, 400, 600}, 16, 32, true, true, false, true,
                                   Fault::kCuSeqlens, /*T=*/600)));
  // The same past one round of the pair's clusters (both take its persistent form within 256
  // sequences: kernel_params.h, fused_gva_pair_persistent; so does
  // fused-gvapair-strong-300+129+17+1+300, 96 clusters).
  m.push_back(fused_case(make_case("fault-cu-fused-gvapair-persistent", {0, 140, 130, 400, 600, 800, 1000}, 16, 32, true,
                                   true, false, true, Fault::kCuSeqlens, /*T=*/1000)));
  m.push_back(fused_case(make_case("fused-v128-mha-T33", {0, 33}, 72, 72, true, false, false)));
  m.push_back(fused_case(make_case("fault-cu-fused-v128", {0, 40, 30, 120, 100}, 17, 17, true, true, false, true,
                                   Fault::kCuSeqlens, /*T=*/200)));
  m.push_back(fused_case(make_case("fault-g-fused-v128", {0, 65, 128}, 17, 34, true, true, false, true, Fault::kDecay)));
  m.push_back(fused_case(make_case("fault-values-fused-v128", {0, 65, 128}, 17, 34, true, true, true, true,
                                   Fault::kValues)));
  m.push_back(fused_case(make_case("fused-v128-many-mha-rand70", offsets_of(random_lengths(70, 1, 100, 127)), 2, 2,
                                   true, true, false)));
  Case strong = make_case("fused-v128-strong-rand70", offsets_of(random_lengths(70, 1, 100, 137)), 2, 2, true, true, true);
  strong.max_log_decay = 60.f;  // the exact path for A and P in most blocks, the sequences longest first
  m.push_back(fused_case(strong));
  Case few = make_case("fused-v128-fewstrong-rand70", offsets_of(random_lengths(70, 1, 100, 137)), 2, 2, true, true, true);
  few.max_log_decay = 60.f, few.strong_every = 37;  // four strong channels of 128
  m.push_back(fused_case(few));
  m.push_back(fused_case(make_case("fused-v128-unordered-300", offsets_of(random_lengths(300, 1, 40, 131)), 1, 1,
                                   false, true, true)));
  // kAuto without the hint where the device chooses (src/contract.cpp, plan_launch): 40 sequences
  // of 2 heads, T = 3000, both paths launched; every sequence shorter than the choice's length
  // (177 tokens on 132 SMs): the fused path runs, phase 1 and the pass return at once; one long
  // sequence: the chunked path runs and the fused kernel returns at once.
  m.push_back(fused_case(make_case("auto-device-fused-40x75", offsets_of(std::vector<int64_t>(40, 75)), 2, 2, true, true,
                                   false), true));
  {
    std::vector<int64_t> one_long(40, 25);
    one_long[7] = 2025;
    Case c = make_case("auto-device-chunked-40", offsets_of(one_long), 2, 2, true, true, true);
    c.algorithm = gdn2::Algorithm::kAuto;  // path: kChunked
    m.push_back(c);
  }
  m.push_back(fused_case(make_case("fault-cu-fused-v128-many", {0, 40, 30, 120, 100}, 34, 34, true, true, false,
                                   true, Fault::kCuSeqlens, /*T=*/200)));
  // The 128-channel form on persistent CTAs (more items than SMs, at most 4,096 sequences; the
  // rand70 cases above and fault-cu-fused-v128-many take it too): 1-block items throughout (the
  // claims' ring, raw inputs requested across items), the same past 256 sequences (in index
  // order), and one long sequence among short ones.
  m.push_back(fused_case(make_case("fused-persistent-1x200", offsets_of(std::vector<int64_t>(200, 1)), 1, 1, true, true,
                                   false)));
  m.push_back(fused_case(make_case("fused-persistent-1x300", offsets_of(std::vector<int64_t>(300, 1)), 1, 1, true, true,
                                   false)));
  {
    std::vector<int64_t> mixed = random_lengths(60, 1, 40, 139);
    mixed[3] = 700;
    m.push_back(fused_case(make_case("fused-persistent-long-60", offsets_of(mixed), 4, 4, true, true, true)));
  }
  // The one-CTA-per-item kernels, past the persistent forms' bounds of sequences (4,096; the GVA
  // pair's 256): 4,097 one-token sequences of one head, and 257 of 128 tokens of a GVA-2 group.
  m.push_back(fused_case(make_case("fused-v128-one-item-4097x1", offsets_of(std::vector<int64_t>(4097, 1)), 1, 1, true,
                                   true, false)));
  m.push_back(fused_case(make_case("fused-gvapair-one-item-257x128", offsets_of(std::vector<int64_t>(257, 128)), 1, 2,
                                   true, true, true)));
  {  // inconsistent cu_seqlens there (offsets 99 and 98 out of order)
    std::vector<int64_t> cu = offsets_of(std::vector<int64_t>(4097, 1));
    cu[100] = 98;
    m.push_back(fused_case(make_case("fault-cu-fused-v128-one-item", cu, 1, 1, true, true, false, true, Fault::kCuSeqlens,
                                     /*T=*/4097)));
  }

  // State pools: each kernel that reads or writes states, in place, and with one index past the pool.
  const auto pooled = [&](Case c, Case::Pool mode) {
    c.pool = mode;
    c.name += mode == Case::Pool::kPooled ? "-pool" : mode == Case::Pool::kBadIndex ? "-pool-bad-index" : "-pool-bf16";
    m.push_back(c);
  };
  for (Case::Pool mode : {Case::Pool::kPooled, Case::Pool::kBadIndex, Case::Pool::kPooledBf16}) {
    pooled(make_case("mha-T512", {0, 512}, 16, 16, true, true, false), mode);                          // v32 overlapped
    pooled(make_case("gva3-65+63+1", {0, 65, 128, 129}, 2, 6, true, true, false), mode);                // v32
    pooled(make_case("gva4-rand12", offsets_of(random_lengths(12, 1, 200, 105)), 1, 4, true, true, true), mode);  // v64
    pooled(make_case("gva2-rand70", offsets_of(random_lengths(70, 1, 90, 107)), 2, 4, true, true, true), mode);   // v128
    pooled(recurrent_case(make_case("rec-mha-rand20", offsets_of(random_lengths(20, 1, 150, 108)), 2, 2, true, true,
                                    true)), mode);
    pooled(fused_case(make_case("fused-pair-300+129+17+1", {0, 300, 429, 446, 447}, 2, 4, true, true, false)), mode);
    pooled(fused_case(make_case("fused-v128-gva2-34x40", offsets_of(std::vector<int64_t>(34, 40)), 1, 2, true, true,
                                false)), mode);
    pooled(fused_case(make_case("fused-persistent-mha-rand70", offsets_of(random_lengths(70, 1, 100, 127)), 2, 2,
                                true, true, false)), mode);
    pooled(fused_case(make_case("fused-gvapair-300+129+17+1+300", {0, 300, 429, 446, 447, 747}, 8, 32, true, true,
                                true)), mode);
    // The one-CTA-per-item kernels, past the persistent forms' bounds of sequences.
    pooled(fused_case(make_case("fused-v128-one-item-4097x1", offsets_of(std::vector<int64_t>(4097, 1)), 1, 1, true,
                                true, false)), mode);
    pooled(fused_case(make_case("fused-gvapair-one-item-257x128", offsets_of(std::vector<int64_t>(257, 128)), 1, 2,
                                true, true, true)), mode);
  }
  return m;
}

struct HostInputs {
  std::vector<float> q, k, g, b, v, w, h0;
};

HostInputs make_inputs(const Case& c, uint64_t seed) {
  Rng rng(seed);
  const size_t kn = size_t(c.T) * c.Hq * K, vn = size_t(c.T) * c.Hv * V;
  HostInputs in;
  in.q.resize(kn), in.k.resize(kn), in.g.resize(kn), in.b.resize(kn);
  in.v.resize(vn), in.w.resize(vn);
  for (size_t r = 0; r < kn / K; ++r) {  // unit-norm q and k rows
    float nq = 0.f, nk = 0.f;
    for (int j = 0; j < K; ++j) {
      const float a = rng.symmetric(), b = rng.symmetric();
      in.q[r * K + j] = a, in.k[r * K + j] = b;
      nq += a * a, nk += b * b;
    }
    nq = 1.f / std::sqrt(nq + 1e-12f), nk = 1.f / std::sqrt(nk + 1e-12f);
    for (int j = 0; j < K; ++j) in.q[r * K + j] *= nq, in.k[r * K + j] *= nk;
  }
  for (size_t i = 0; i < kn; ++i) {
    const float u = rng.uniform();
    const bool strong = c.strong_every == 0 || int(i % K) % c.strong_every == 5;
    in.g[i] = -(1e-3f + (strong ? c.max_log_decay : 6.f) * u * u);  // log decays in (-max_log_decay, -1e-3]
    in.b[i] = rng.uniform();
  }
  for (size_t i = 0; i < vn; ++i) in.v[i] = rng.symmetric(), in.w[i] = rng.uniform();
  if (c.h0) {
    in.h0.resize(size_t(c.N()) * c.Hv * V * K);
    for (auto& x : in.h0) x = 0.1f * rng.symmetric();
  }
  return in;
}

// Faults of the kDecay and kValues cases: in sequence 0 (tokens < 65), key head 0 and value head 0.
void inject_faults(const Case& c, HostInputs& in) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto key = [&](int64_t t, int hk, int j) -> size_t { return (size_t(t) * c.Hq + hk) * K + j; };
  auto val = [&](int64_t t, int hv, int j) -> size_t { return (size_t(t) * c.Hv + hv) * V + j; };
  if (c.fault == Fault::kDecay) {
    in.g[key(3, 0, 5)] = nan;
    in.g[key(10, 0, 7)] = inf;
    in.g[key(20, 0, 9)] = -inf;
    in.g[key(30, 0, 11)] = 5.f;  // g > 0
    in.g[key(64, 0, 127)] = nan;  // the last token of sequence 0
  } else {
    in.b[key(40, 0, 1)] = nan;
    in.q[key(45, 0, 2)] = inf;
    in.v[val(50, 0, 3)] = 3.0e38f;  // huge but finite in bf16
    in.w[val(60, 0, 2)] = inf;
  }
}

std::vector<uint16_t> to_bf16(const std::vector<float>& x) {
  std::vector<uint16_t> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const __nv_bfloat16 h = __float2bfloat16_rn(x[i]);
    std::memcpy(&y[i], &h, 2);
  }
  return y;
}

bool bf16_finite(uint16_t x) { return (x & 0x7F80u) != 0x7F80u; }

// Device memory of one case, freed on every path.
struct DeviceBuffers {
  std::vector<void*> ptrs;
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
  cudaError_t alloc(void** p, size_t bytes) {
    *p = nullptr;
    cudaError_t e = cudaMalloc(p, bytes == 0 ? 16 : bytes);
    if (e == cudaSuccess) ptrs.push_back(*p);
    return e;
  }
};

struct Outputs {
  std::vector<uint16_t> o;
  std::vector<float> ht;
};

struct Runner {
  Runner(const Case& c_, cudaStream_t stream_, char* why_, size_t why_size_)
      : c(c_), stream(stream_), why(why_), why_size(why_size_) {}
  const Case& c;
  cudaStream_t stream;
  char* why;
  size_t why_size;
  DeviceBuffers mem;
  void *dq = nullptr, *dk = nullptr, *dg = nullptr, *db = nullptr, *dv = nullptr, *dw = nullptr;
  void *dcu = nullptr, *dh0 = nullptr, *dout = nullptr, *dht = nullptr, *dws = nullptr;
  size_t out_bytes = 0, ht_bytes = 0, ws_bytes = 0;
  gdn2::ForwardArgs args;
  // Case::pool: the pool (slots `slot_stride` floats apart), its contents before the call, and the
  // initial and final slot of each sequence (-1: none; past the pool: the bad index).
  void *dpool = nullptr, *dinit = nullptr, *dfinal = nullptr;
  int64_t slots = 0, slot_stride = 0;
  std::vector<unsigned char> pool_before;  // the pool's bytes (fp32 or bf16 elements)
  size_t pool_elem_bytes = 4;
  std::vector<int32_t> init_idx, final_idx;
};

// Every CUDA call is checked: a failure is reported (in r.why) and the case fails.
#define CUDA_OK(x)                                                                          \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::snprintf(r.why, r.why_size, "%s:%d: %s: %s", __FILE__, __LINE__, #x,             \
                    cudaGetErrorString(e_));                                                \
      return false;                                                                         \
    }                                                                                       \
  } while (0)
#define EXPECT(cond, ...)                                 \
  do {                                                    \
    if (!(cond)) {                                        \
      std::snprintf(r.why, r.why_size, __VA_ARGS__);      \
      return false;                                       \
    }                                                     \
  } while (0)

bool upload_inputs(Runner& r, const HostInputs& in) {
  const auto q = to_bf16(in.q), k = to_bf16(in.k), b = to_bf16(in.b), v = to_bf16(in.v), w = to_bf16(in.w);
  CUDA_OK(cudaMemcpy(r.dq, q.data(), q.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(r.dk, k.data(), k.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(r.db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(r.dv, v.data(), v.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(r.dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(r.dg, in.g.data(), in.g.size() * 4, cudaMemcpyHostToDevice));
  if (r.c.h0) CUDA_OK(cudaMemcpy(r.dh0, in.h0.data(), in.h0.size() * 4, cudaMemcpyHostToDevice));
  // A pageable cudaMemcpy may return before its DMA lands: wait for it before any launch.
  CUDA_OK(cudaDeviceSynchronize());
  return true;
}

bool setup(Runner& r) {
  const Case& c = r.c;
  const int64_t T = c.T, N = c.N();
  const size_t kn = size_t(T) * c.Hq * K, vn = size_t(T) * c.Hv * V, sn = size_t(N) * c.Hv * V * K;
  CUDA_OK(r.mem.alloc(&r.dq, kn * 2));
  CUDA_OK(r.mem.alloc(&r.dk, kn * 2));
  CUDA_OK(r.mem.alloc(&r.db, kn * 2));
  CUDA_OK(r.mem.alloc(&r.dg, kn * 4));
  CUDA_OK(r.mem.alloc(&r.dv, vn * 2));
  CUDA_OK(r.mem.alloc(&r.dw, vn * 2));
  if (c.cu64) {
    CUDA_OK(r.mem.alloc(&r.dcu, c.cu.size() * 8));
    CUDA_OK(cudaMemcpy(r.dcu, c.cu.data(), c.cu.size() * 8, cudaMemcpyHostToDevice));
  } else {
    std::vector<int32_t> cu32(c.cu.begin(), c.cu.end());
    CUDA_OK(r.mem.alloc(&r.dcu, cu32.size() * 4));
    CUDA_OK(cudaMemcpy(r.dcu, cu32.data(), cu32.size() * 4, cudaMemcpyHostToDevice));
  }
  if (c.h0) CUDA_OK(r.mem.alloc(&r.dh0, sn * 4));
  r.out_bytes = vn * 2;
  CUDA_OK(r.mem.alloc(&r.dout, r.out_bytes));
  if (c.ht) {
    r.ht_bytes = sn * 4;
    CUDA_OK(r.mem.alloc(&r.dht, r.ht_bytes));
  }
  using gdn2::DType;
  const int64_t key_shape[3] = {T, c.Hq, K}, value_shape[3] = {T, c.Hv, V};
  const int64_t state_shape[4] = {N, c.Hv, V, K}, cu_shape[1] = {N + 1};
  int dev = 0;
  CUDA_OK(cudaGetDevice(&dev));
  gdn2::ForwardArgs& a = r.args;
  a.q = gdn2::contiguous_view(r.dq, DType::kBFloat16, dev, 3, key_shape);
  a.k = gdn2::contiguous_view(r.dk, DType::kBFloat16, dev, 3, key_shape);
  a.b = gdn2::contiguous_view(r.db, DType::kBFloat16, dev, 3, key_shape);
  a.g = gdn2::contiguous_view(r.dg, DType::kFloat32, dev, 3, key_shape);
  a.v = gdn2::contiguous_view(r.dv, DType::kBFloat16, dev, 3, value_shape);
  a.w = gdn2::contiguous_view(r.dw, DType::kBFloat16, dev, 3, value_shape);
  a.cu_seqlens = gdn2::contiguous_view(r.dcu, c.cu64 ? DType::kInt64 : DType::kInt32, dev, 1, cu_shape);
  if (c.h0) a.initial_state = gdn2::contiguous_view(r.dh0, DType::kFloat32, dev, 4, state_shape);
  a.output = gdn2::contiguous_view(r.dout, DType::kBFloat16, dev, 3, value_shape);
  if (c.ht) a.final_state = gdn2::contiguous_view(r.dht, DType::kFloat32, dev, 4, state_shape);
  a.scale = 1.f / std::sqrt(float(K));
  a.algorithm = c.algorithm;
  // Exactly the plan's workspace (only the flag words where no chunked path can run), so that
  // memcheck sees any read or write past what forward_workspace_bytes(args) promises.
  const size_t ws_bytes = gdn2::forward_workspace_bytes(a);
  EXPECT(ws_bytes > 0 && ws_bytes <= gdn2::forward_workspace_bytes(T, N, c.Hq),
         "forward_workspace_bytes(args) = %zu, forward_workspace_bytes(T, N, Hq) = %zu", ws_bytes,
         gdn2::forward_workspace_bytes(T, N, c.Hq));
  CUDA_OK(r.mem.alloc(&r.dws, ws_bytes));
  r.ws_bytes = ws_bytes;
  a.workspace = r.dws;
  a.workspace_bytes = ws_bytes;
  return true;
}

// Case::pool: initial_state and final_state become one pool of 2N + 1 slots with a 64-element gap
// after each (the allocation ends at the last slot's end), fp32 or (kPooledBf16) bf16 elements,
// filled with finite values; sequence n's
// final slot is a distinct random one, its initial slot the same, or -1 (from zeros) for every
// third sequence; kBadIndex puts sequence N / 2's two indices past the pool.
bool setup_pool(Runner& r, uint64_t seed) {
  const Case& c = r.c;
  const int64_t N = c.N(), slot = int64_t(c.Hv) * V * K;
  r.slots = 2 * N + 1;
  r.slot_stride = slot + 64;
  const int64_t elems = (r.slots - 1) * r.slot_stride + slot;
  Rng rng(seed ^ 0x5107);
  const bool bf16 = c.pool == Case::Pool::kPooledBf16;
  r.pool_elem_bytes = bf16 ? 2 : 4;
  r.pool_before.resize(size_t(elems) * r.pool_elem_bytes);
  for (int64_t i = 0; i < elems; ++i) {
    const float x = 0.1f * rng.symmetric();
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    if (bf16) {
      const uint16_t h = uint16_t(bits >> 16);  // truncated: any finite bf16 value will do
      std::memcpy(&r.pool_before[size_t(i) * 2], &h, 2);
    } else {
      std::memcpy(&r.pool_before[size_t(i) * 4], &bits, 4);
    }
  }
  std::vector<int32_t> perm(size_t(r.slots));
  for (int64_t i = 0; i < r.slots; ++i) perm[size_t(i)] = int32_t(i);
  for (int64_t i = r.slots - 1; i > 0; --i) std::swap(perm[size_t(i)], perm[size_t(rng.range(0, i))]);
  r.final_idx.assign(perm.begin(), perm.begin() + N);
  r.init_idx = r.final_idx;
  for (int64_t n = 0; n < N; n += 3) r.init_idx[size_t(n)] = -1;
  if (c.pool == Case::Pool::kBadIndex) r.init_idx[size_t(N / 2)] = r.final_idx[size_t(N / 2)] = int32_t(r.slots + 5);
  CUDA_OK(r.mem.alloc(&r.dpool, r.pool_before.size()));
  CUDA_OK(r.mem.alloc(&r.dinit, size_t(N) * 4));
  CUDA_OK(r.mem.alloc(&r.dfinal, size_t(N) * 4));
  CUDA_OK(cudaMemcpy(r.dinit, r.init_idx.data(), size_t(N) * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(r.dfinal, r.final_idx.data(), size_t(N) * 4, cudaMemcpyHostToDevice));
  int dev = 0;
  CUDA_OK(cudaGetDevice(&dev));
  const int64_t pool_shape[4] = {r.slots, c.Hv, V, K}, index_shape[1] = {N};
  gdn2::TensorView pool =
      gdn2::contiguous_view(r.dpool, bf16 ? gdn2::DType::kBFloat16 : gdn2::DType::kFloat32, dev, 4, pool_shape);
  pool.strides[0] = r.slot_stride;
  r.args.initial_state = r.args.final_state = pool;
  r.args.initial_state_indices = gdn2::contiguous_view(r.dinit, gdn2::DType::kInt32, dev, 1, index_shape);
  r.args.final_state_indices = gdn2::contiguous_view(r.dfinal, gdn2::DType::kInt32, dev, 1, index_shape);
  return true;
}

// The pooled call: outputs written and finite (NaN in the bad sequence's rows, written by the
// kernels); each good sequence's final slot written and finite; every other byte of the pool (other
// slots, every gap, the bad sequence's slot) as before.
bool check_pool_case(Runner& r) {
  const Case& c = r.c;
  const int64_t N = c.N(), slot = int64_t(c.Hv) * V * K;
  CUDA_OK(cudaMemcpy(r.dpool, r.pool_before.data(), r.pool_before.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemsetAsync(r.dout, 0xFF, r.out_bytes, r.stream));
  const gdn2::Status st = gdn2::forward(r.args, r.stream);
  EXPECT(st.ok(), "gdn2::forward returned %d: %s", int(st.code), st.message);
  CUDA_OK(cudaStreamSynchronize(r.stream));
  std::vector<uint16_t> o(r.out_bytes / 2);
  std::vector<unsigned char> pool(r.pool_before.size());
  CUDA_OK(cudaMemcpy(o.data(), r.dout, r.out_bytes, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(pool.data(), r.dpool, pool.size(), cudaMemcpyDeviceToHost));
  const int64_t bad = c.pool == Case::Pool::kBadIndex ? N / 2 : -1;
  size_t wrong_o = 0;
  for (int64_t s = 0; s < N; ++s)
    for (int64_t i = c.cu[size_t(s)] * c.Hv * V; i < c.cu[size_t(s) + 1] * c.Hv * V; ++i) {
      const uint16_t x = o[size_t(i)];
      wrong_o += s == bad ? (x == 0xFFFFu || bf16_finite(x) || (x & 0x007Fu) == 0) : !bf16_finite(x);
    }
  EXPECT(wrong_o == 0, "output: %zu values wrong (poison left, non-finite, or a finite value in the bad sequence)",
         wrong_o);
  std::vector<int64_t> written(size_t(r.slots), -1);
  for (int64_t s = 0; s < N; ++s)
    if (s != bad) written[size_t(r.final_idx[size_t(s)])] = s;
  size_t not_written = 0, touched = 0;
  const size_t eb = r.pool_elem_bytes;
  for (int64_t i = 0; i < int64_t(pool.size() / eb); ++i) {
    const int64_t p = i / r.slot_stride, at = i % r.slot_stride;
    const unsigned char* x = &pool[size_t(i) * eb];
    if (at < slot && written[size_t(p)] >= 0) {
      uint32_t bits = 0;
      std::memcpy(reinterpret_cast<unsigned char*>(&bits) + (4 - eb), x, eb);  // bf16: the high half
      float f;
      std::memcpy(&f, &bits, 4);
      not_written += !std::isfinite(f);
    } else {
      touched += std::memcmp(x, &r.pool_before[size_t(i) * eb], eb) != 0;
    }
  }
  EXPECT(not_written == 0, "pool: %zu values of written slots non-finite", not_written);
  EXPECT(touched == 0, "pool: %zu values outside the written slots changed", touched);
  std::printf("    (%s pool of %lld slots, %lld elements apart; %s)\n", eb == 2 ? "bf16" : "fp32", (long long)r.slots,
              (long long)r.slot_stride,
              bad >= 0 ? "sequence N / 2 past the pool: its rows NaN" : "in place");
  return true;
}

// Poisons the outputs (all bytes 0xFF: NaN in bf16 and fp32), runs forward, copies the outputs back.
bool run_forward(Runner& r, Outputs* out) {
  CUDA_OK(cudaMemsetAsync(r.dout, 0xFF, r.out_bytes, r.stream));
  if (r.dht) CUDA_OK(cudaMemsetAsync(r.dht, 0xFF, r.ht_bytes, r.stream));
  const gdn2::Status st = gdn2::forward(r.args, r.stream);
  EXPECT(st.ok(), "gdn2::forward returned %d: %s", int(st.code), st.message);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaStreamSynchronize(r.stream));
  out->o.resize(r.out_bytes / 2);
  CUDA_OK(cudaMemcpy(out->o.data(), r.dout, r.out_bytes, cudaMemcpyDeviceToHost));
  out->ht.clear();
  if (r.dht) {
    out->ht.resize(r.ht_bytes / 4);
    CUDA_OK(cudaMemcpy(out->ht.data(), r.dht, r.ht_bytes, cudaMemcpyDeviceToHost));
  }
  return true;
}

bool same_bits(const Outputs& a, const Outputs& b) {
  return a.o.size() == b.o.size() && a.ht.size() == b.ht.size() &&
         std::memcmp(a.o.data(), b.o.data(), a.o.size() * 2) == 0 &&
         std::memcmp(a.ht.data(), b.ht.data(), a.ht.size() * 4) == 0;
}

bool check_valid_case(Runner& r) {
  Outputs first, second;
  if (!run_forward(r, &first)) return false;
  size_t bad_o = 0, bad_s = 0;
  for (uint16_t x : first.o) bad_o += !bf16_finite(x);
  for (float x : first.ht) bad_s += !std::isfinite(x);
  EXPECT(bad_o == 0, "output: %zu of %zu values non-finite or not written (NaN poison left)", bad_o,
         first.o.size());
  EXPECT(bad_s == 0, "final_state: %zu of %zu values non-finite or not written", bad_s, first.ht.size());
  // Everything the first call left in the workspace (factors, fault words) is overwritten by bytes
  // that would read as NaN factors and as a raised fault: the second call must not read any of it.
  CUDA_OK(cudaMemsetAsync(r.dws, 0xFF, r.ws_bytes, r.stream));
  if (!run_forward(r, &second)) return false;
  EXPECT(same_bits(first, second), "a second call, on a workspace of 0xFF bytes, is not bitwise equal to the first");
  return true;
}

// Inconsistent cu_seqlens: every output row and every final state is NaN, written by the kernels
// (a NaN other than the all-ones poison).
bool check_fault_cu(Runner& r) {
  Outputs out;
  if (!run_forward(r, &out)) return false;
  size_t poison_o = 0, number_o = 0, poison_s = 0, number_s = 0;
  for (uint16_t x : out.o) {
    poison_o += x == 0xFFFFu;
    number_o += bf16_finite(x) || (x & 0x007Fu) == 0;  // finite or infinite: not a NaN
  }
  for (float x : out.ht) {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    poison_s += bits == 0xFFFFFFFFu;
    number_s += !std::isnan(x);
  }
  EXPECT(poison_o == 0, "output: %zu of %zu values not written (poison left)", poison_o, out.o.size());
  EXPECT(number_o == 0, "output: %zu of %zu values are not NaN", number_o, out.o.size());
  EXPECT(poison_s == 0, "final_state: %zu of %zu values not written (poison left)", poison_s, out.ht.size());
  EXPECT(number_s == 0, "final_state: %zu of %zu values are not NaN", number_s, out.ht.size());
  return true;
}

bool check_fault_values(Runner& r, const HostInputs& clean, const HostInputs& faulty) {
  const Case& c = r.c;
  Outputs ref, out;
  if (!upload_inputs(r, clean)) return false;
  if (!run_forward(r, &ref)) return false;
  if (!upload_inputs(r, faulty)) return false;
  if (!run_forward(r, &out)) return false;
  // Faults sit in sequence 0, key head 0 and value head 0: value heads of key head 0 in sequence 0
  // may change; everything else must be bitwise equal to the clean run. Bad g: all finite.
  const int group = c.Hv / c.Hq;
  const int64_t seq0_end = c.cu[1];
  size_t differ = 0, affected_nonfinite = 0, state_nonfinite = 0;
  for (int64_t t = 0; t < c.T; ++t)
    for (int h = 0; h < c.Hv; ++h)
      for (int j = 0; j < V; ++j) {
        const size_t i = (size_t(t) * c.Hv + h) * V + j;
        if (t < seq0_end && h / group == 0) {
          affected_nonfinite += !bf16_finite(out.o[i]);
          continue;
        }
        differ += out.o[i] != ref.o[i];
      }
  for (float x : out.ht) state_nonfinite += !std::isfinite(x);
  if (c.fault == Fault::kDecay) {
    EXPECT(affected_nonfinite == 0 && state_nonfinite == 0,
           "g out of range must leave results finite: %zu output and %zu state values non-finite",
           affected_nonfinite, state_nonfinite);
  }
  EXPECT(differ == 0, "output: %zu values outside the faulty sequence/head differ from the clean run",
         differ);
  if (c.ht) {
    const size_t per_head = size_t(V) * K;
    for (int64_t s = 0; s < c.N(); ++s)
      for (int h = 0; h < c.Hv; ++h) {
        if (s == 0 && h / group == 0) continue;
        const size_t off = (size_t(s) * c.Hv + h) * per_head;
        differ += std::memcmp(&out.ht[off], &ref.ht[off], per_head * 4) != 0;
      }
    EXPECT(differ == 0, "final_state: %zu heads outside the faulty sequence/head differ from the clean run",
           differ);
  }
  std::printf("    (faulty sequence/head: %zu non-finite output values, confined)\n", affected_nonfinite);
  return true;
}

bool run_case(const Case& c, uint64_t seed, char* why, size_t why_size) {
  cudaStream_t stream = nullptr;
  {
    cudaError_t e = cudaStreamCreate(&stream);  // blocking: ordered after the default stream's copies
    if (e != cudaSuccess) {
      std::snprintf(why, why_size, "cudaStreamCreate: %s", cudaGetErrorString(e));
      return false;
    }
  }
  bool ok;
  {
    Runner r(c, stream, why, why_size);
    ok = setup(r);
    const bool value_fault = c.fault == Fault::kDecay || c.fault == Fault::kValues;
    HostInputs in = make_inputs(c, seed), faulty;
    if (ok && value_fault) {
      faulty = in;
      inject_faults(c, faulty);
    }
    if (ok) ok = upload_inputs(r, value_fault ? faulty : in);
    const bool pool = c.pool != Case::Pool::kNone;
    if (ok && pool) {
      ok = setup_pool(r, seed) && check_pool_case(r);
      // validate_values names the index past the pool, and accepts the in-place pool.
      if (ok) {
        const gdn2::Status st = gdn2::validate_values(r.args, stream);
        const bool bad = c.pool == Case::Pool::kBadIndex;
        if (bad ? st.code != gdn2::StatusCode::kInvalidValue : !st.ok()) {
          std::snprintf(why, why_size, "validate_values on the pool returned %d: %s", int(st.code), st.message);
          ok = false;
        } else if (bad) {
          std::printf("    validate_values refused it: %s\n", st.message);
        }
      }
    }
    if (ok && !pool && c.validate) {
      const gdn2::Status st = gdn2::validate_values(r.args, stream);
      if (c.fault == Fault::kNone && !st.ok()) {
        std::snprintf(why, why_size, "validate_values refused valid inputs (%d): %s", int(st.code), st.message);
        ok = false;
      } else if (c.fault != Fault::kNone && st.code != gdn2::StatusCode::kInvalidValue) {
        std::snprintf(why, why_size, "validate_values returned %d (want kInvalidValue): %s", int(st.code),
                      st.message);
        ok = false;
      } else if (c.fault != Fault::kNone) {
        std::printf("    validate_values refused it: %s\n", st.message);
      }
    }
    if (ok && !pool) {
      switch (c.fault) {
        case Fault::kNone: ok = check_valid_case(r); break;
        case Fault::kCuSeqlens: ok = check_fault_cu(r); break;
        case Fault::kDecay:
        case Fault::kValues: ok = check_fault_values(r, in, faulty); break;
      }
    }
  }  // device buffers freed here
  const cudaError_t e = cudaStreamDestroy(stream);
  if (ok && e != cudaSuccess) {
    std::snprintf(why, why_size, "cudaStreamDestroy: %s", cudaGetErrorString(e));
    ok = false;
  }
  return ok;
}

bool in_list(const std::string& csv, const std::string& name) {
  size_t start = 0;
  while (start <= csv.size()) {
    size_t end = csv.find(',', start);
    if (end == std::string::npos) end = csv.size();
    if (csv.compare(start, end - start, name) == 0) return true;
    start = end + 1;
  }
  return false;
}

const char* mode_name(bool h0, bool ht) {
  return h0 ? (ht ? "h0-ht" : "h0-noht") : (ht ? "noh0-ht" : "noh0-noht");
}

}  // namespace

int main(int argc, char** argv) {
  std::string only, skip;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list") list = true;
    else if (a.rfind("--only=", 0) == 0) only = a.substr(7);
    else if (a.rfind("--skip=", 0) == 0) skip = a.substr(7);
    else {
      std::fprintf(stderr, "usage: %s [--list] [--only=name,name] [--skip=name,name]\n", argv[0]);
      return 2;
    }
  }
  const std::vector<Case> matrix = the_matrix();
  if (list) {
    for (const Case& c : matrix) std::printf("%s\n", c.name.c_str());
    return 0;
  }

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA GPU: the sanitizer matrix needs an sm_90 GPU\n");
    return 1;
  }
  int dev = 0, sms = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    std::printf("cannot query the CUDA device\n");
    return 1;
  }
  std::printf("device %d: sm_%d%d, %d SMs; state_pass v32 when N * Hv * 4 <= %d, else v64 when N * Hv * 2 <= %d, "
              "else v128; fused v64 when N * Hv * 2 <= %d, else v128\n", dev, major, minor, sms, sms, sms, sms);
  constexpr int kVariantCount = 6;
  static const char* kVariants[kVariantCount] = {"state_pass v32", "state_pass v64", "state_pass v128", "recurrent",
                                                 "fused v64", "fused v128"};

  // Coverage of the in-contract cases: [variant][state mode], cu_seqlens dtypes, validate.
  bool covered[kVariantCount][4] = {}, cu32 = false, cu64 = false, validated = false;
  int failures = 0, ran = 0;
  for (size_t i = 0; i < matrix.size(); ++i) {
    const Case& c = matrix[i];
    if (!only.empty() && !in_list(only, c.name)) continue;
    if (!skip.empty() && in_list(skip, c.name)) continue;
    const int64_t heads = c.N() * c.Hv;
    const int variant = c.path == gdn2::Algorithm::kRecurrent ? 3
                        : c.path == gdn2::Algorithm::kFused   ? (heads * 2 <= sms ? 4 : 5)
                        : heads * 4 <= sms                    ? 0
                        : heads * 2 <= sms                    ? 1
                                                              : 2;
    // The fused 128-channel form: on persistent CTAs up to 4,096 sequences (the GVA pair: clusters,
    // 256; kernel_params.h, fused_persistent and fused_gva_pair_persistent), within one round as
    // past it, else one CTA (cluster) per item in index order (fused.cuh).
    const bool gva_pair = c.Hv / c.Hq % 2 == 0 && c.T >= 128 * c.N();
    const bool persistent = variant == 5 && c.N() <= (gva_pair ? 256 : 4096);
    const bool ordered = variant == 2 && heads > sms && c.N() > 1;  // the 128-channel pass (src/launch.cu)
    const int64_t items = (c.T / 64 + c.N() + 1) * c.Hq;
    const bool overlapped = variant == 0 && c.N() == 1 && 2 * heads * 4 <= sms && items > sms;
    std::printf("case %-26s T=%-5lld N=%-3lld Hq=%-2d Hv=%-2d %-9s %s %s%s%s%s%s%s%s\n",
                c.name.c_str(), (long long)c.T, (long long)c.N(), c.Hq, c.Hv, mode_name(c.h0, c.ht),
                c.cu64 ? "int64" : "int32", kVariants[variant],
                c.algorithm == gdn2::Algorithm::kAuto ? " (auto)" : "", ordered ? " ordered" : "",
                persistent ? " persistent" : "",
                overlapped ? " overlapped" : "", c.validate ? " validate" : "",
                c.fault == Fault::kNone ? "" : " OUT-OF-CONTRACT");
    std::fflush(stdout);
    char why[512] = {0};
    const bool ok = run_case(c, 1000 + i, why, sizeof(why));
    ++ran;
    std::printf("  %s %s%s\n", ok ? "PASS" : "FAIL", c.name.c_str(), ok ? "" : (std::string(": ") + why).c_str());
    std::fflush(stdout);
    if (!ok) {
      ++failures;
      continue;
    }
    if (c.fault == Fault::kNone) {
      covered[variant][(c.h0 ? 2 : 0) + (c.ht ? 1 : 0)] = true;
      (c.cu64 ? cu64 : cu32) = true;
      validated = validated || c.validate;
    }
  }

  if (only.empty() && skip.empty()) {  // the full matrix must cover every variant
    std::printf("coverage (passing in-contract cases):\n");
    for (int w = 0; w < kVariantCount; ++w)
      for (int m = 0; m < 4; ++m) {
        std::printf("  %-16s %-9s %s\n", kVariants[w], mode_name(m & 2, m & 1), covered[w][m] ? "yes" : "NO");
        failures += !covered[w][m];
      }
    std::printf("  cu_seqlens int32 %s, int64 %s, validate_values %s\n", cu32 ? "yes" : "NO",
                cu64 ? "yes" : "NO", validated ? "yes" : "NO");
    failures += !cu32 + !cu64 + !validated;
  }

  // Destroy the context so that memcheck's leak check sees every allocation's fate.
  const cudaError_t reset = cudaDeviceReset();
  if (reset != cudaSuccess) {
    std::printf("cudaDeviceReset: %s\n", cudaGetErrorString(reset));
    ++failures;
  }
  std::printf("%d case(s) run, %d failure(s): %s\n", ran, failures, failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
