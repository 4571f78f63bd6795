// Where phase 1's time per item goes: runs gdn2::forward on model-like inputs (the distribution of
// python/gdn2/testing.py, kind="model") with a copy of the library whose chunk_factors kernel reads
// the SM clock after each stage of every item (GDN2_PHASE1_TIMELINE), and prints the mean cycles
// of each stage, for each CTA's first item and for the items after it; then the solver warpgroup's
// steps per item and how long it waits for the next one; then each CTA's first item from the CTA's
// start to its solver's last step; and where the call's state pass is the 32-channel one, its time
// per chunk beside phase 1 and after it, with its wait for phase 1's blocks.
//
// build: cmake -S . -B build-timeline -G Ninja -DGDN2_PHASE1_TIMELINE=ON -DGDN2_BUILD_TESTS=OFF
//        ninja -C build-timeline gdn2_phase1_timeline
// usage: ./build-timeline/gdn2_phase1_timeline [ROW ...]   (rows: S1 T512 S2 L32K B8x2K, and the
//        fused path forced: S1-fused B8x2K-fused B4x4K-fused, with its CTAs' timeline, and
//        64x256-fused 128x1-fused B8x2K-gva2-fused 64x256-gva2-fused, which take the persistent
//        forms, with their items' timeline; default all)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "gdn2/gdn2.h"
#include "kernels/kernel_params.h"

namespace {

using gdn2::kernels::kTimelineCtas;
using gdn2::kernels::kTimelineItems;
using gdn2::kernels::kTimelineMarks;
using gdn2::kernels::kSolverMarks;

// A measurement program, not a library: any failure ends it.
void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
  std::exit(1);
}

struct Row {
  const char* name;
  int64_t length;  // tokens per sequence
  int n_seq;
  int heads;       // Hq
  gdn2::Algorithm algorithm = gdn2::Algorithm::kAuto;
  int group = 1;   // Hv / Hq
};
constexpr Row kRows[] = {{"S1", 64, 1, 16},
                         {"T512", 512, 1, 16},
                         {"S2", 1024, 1, 16},
                         {"L32K", 32768, 1, 16},
                         {"B8x2K", 2048, 8, 16},
                         {"S1-fused", 64, 1, 16, gdn2::Algorithm::kFused},
                         {"B8x2K-fused", 2048, 8, 16, gdn2::Algorithm::kFused},
                         {"B4x4K-fused", 4096, 4, 16, gdn2::Algorithm::kFused},
                         {"64x256-fused", 256, 64, 16, gdn2::Algorithm::kFused},
                         {"128x1-fused", 1, 128, 16, gdn2::Algorithm::kFused},
                         {"B8x2K-gva2-fused", 2048, 8, 16, gdn2::Algorithm::kFused, 2},
                         {"64x256-gva2-fused", 256, 64, 16, gdn2::Algorithm::kFused, 2}};

// A first item from its CTA's start, in order: until its first mark (set-up, the first item's loads
// issued), the factor warps' stages up to the hand-over, the wait for the solver, then the solver's
// steps (kSolverSteps).
constexpr const char* kFirstItemSteps[3] = {"CTA start -> first mark (loads issued)", "factor warps: first mark -> hand-over",
                                            "hand-over -> solver's first mark"};

// The stages between consecutive marks (chunk_factors.cu, GDN2_TIMELINE_MARK).
// They are the factor warps' stages; the solver's inverse and stores of T and M run alongside.
constexpr const char* kStages[kTimelineMarks - 1] = {
    "stage inputs (waits for the loads)", "decayed rows, mid-block columns", "mid-block scales, fetch next",
    "wait for the solver (A, M free)", "A and M, hand-over", "end of item"};

// The solver's steps between its marks (solve_items), for each item handed to it; then its wait for
// the next item.
constexpr const char* kSolverSteps[kSolverMarks - 1] = {
    "solver: diagonal blocks; M stored", "solver: blocks below the diagonal", "solver: T stored (thread 0's share)",
    "solver: publication (overlapped pass)"};

void* upload(const void* host, size_t bytes) {
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  return dev;
}

std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& x) {
  std::vector<__nv_bfloat16> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = __float2bfloat16_rn(x[i]);
  return y;
}

// The 32-channel state pass of the same call, where it ran (one wave of 32-channel slices): its
// chunks split by whether they started before phase 1's last CTA ended (global timer), with the
// mean cycles from one chunk's start to the next, to U stored and to U complete (the chunk's
// second barrier), the issuer's wait for the next chunk's block (overlapped passes only), and from
// the chunk's start to the Out warpgroup's Qg S done, to each state warpgroup's S stored, to
// the Out warpgroup's output stored, and to the end of each wait for a factor group and of each
// product after it (RU: Kb, Kb S, T, T R; the first state warpgroup and Out: M and Kend^T, then
// Kend^T U and M U).
void print_pass_timeline(const std::vector<int>& phase1_items, double clock_ghz) {
  using gdn2::kernels::kPassMarks;
  using gdn2::kernels::kPassTimelineChunks;
  using gdn2::kernels::kPassTimelineCtas;
  std::vector<long long> marks(size_t(kPassTimelineCtas) * kPassTimelineChunks * kPassMarks);
  std::vector<long long> start_ns(size_t(kPassTimelineCtas) * kPassTimelineChunks), end_ns(kTimelineCtas);
  std::vector<int> chunks(kPassTimelineCtas);
  check(cudaError_t(gdn2::kernels::read_pass_timeline(marks.data(), start_ns.data(), chunks.data())), "read_pass_timeline");
  check(cudaError_t(gdn2::kernels::read_phase1_end_ns(end_ns.data())), "read_phase1_end_ns");
  long long phase1_end = 0, pass_start = 0;
  for (int cta = 0; cta < kTimelineCtas; ++cta)
    if (phase1_items[cta] > 0) phase1_end = std::max(phase1_end, end_ns[cta]);
  int ctas = 0;
  double sum[2][kPassMarks] = {};
  int count[2] = {0, 0};
  for (int cta = 0; cta < kPassTimelineCtas; ++cta) {
    const int n = std::min(chunks[cta], kPassTimelineChunks);
    if (n < 1) continue;
    ++ctas;
    const long long first_ns = start_ns[size_t(cta) * kPassTimelineChunks];
    pass_start = pass_start == 0 ? first_ns : std::min(pass_start, first_ns);
    for (int c = 0; c + 1 < n; ++c) {  // a chunk's length runs to the next chunk's start
      const long long* m = &marks[(size_t(cta) * kPassTimelineChunks + c) * kPassMarks];
      const int kind = start_ns[size_t(cta) * kPassTimelineChunks + c] < phase1_end ? 0 : 1;
      sum[kind][0] += double(m[kPassMarks] - m[0]);
      sum[kind][1] += double(m[1] - m[0]);
      sum[kind][2] += double(m[2] - m[0]);
      sum[kind][3] += double(m[3]);
      for (int j = 4; j < kPassMarks; ++j) sum[kind][j] += double(m[j] - m[0]);
      ++count[kind];
    }
  }
  if (ctas == 0 || count[0] + count[1] == 0) return;  // no pass of 32-channel slices, or one chunk each (S1)
  std::printf("  the 32-channel pass: %d CTAs; its first chunk starts %.1f us before phase 1's last CTA ends\n", ctas,
              (phase1_end - pass_start) / 1e3);
  std::printf("  %-40s %14s %14s\n", "per chunk (mean cycles, us at max clock)", "beside phase 1", "after it");
  const char* names[kPassMarks] = {"chunk start -> next chunk's start", "chunk start -> U stored (RU)",
                                   "chunk start -> U complete", "issuer's wait for the next block",
                                   "chunk start -> Qg S done (Out)", "chunk start -> S stored (state 0)",
                                   "chunk start -> S stored (state 1)", "chunk start -> O stored (Out)",
                                   "chunk start -> Kb landed (RU's wait)", "chunk start -> Kb S done (RU)",
                                   "chunk start -> T landed (RU's wait)", "chunk start -> T R done (RU)",
                                   "chunk start -> M, Kend^T landed (state 0)", "chunk start -> Kend^T U done (state 0)",
                                   "chunk start -> M, Kend^T landed (Out)", "chunk start -> M U done (Out)",
                                   "chunk start -> Kb's wait reached (RU)", "chunk start -> M's wait reached (state 0)",
                                   "chunk start -> M's wait reached (state 1)", "chunk start -> Kend^T U done (state 1)"};
  for (int j = 0; j < kPassMarks; ++j) {
    double c[2];
    for (int kind = 0; kind < 2; ++kind) c[kind] = count[kind] ? sum[kind][j] / count[kind] : 0.0;
    std::printf("  %-40s %7.0f %5.2f  %7.0f %5.2f\n", names[j], c[0], c[0] / clock_ghz / 1e3, c[1], c[1] / clock_ghz / 1e3);
  }
  std::printf("  %-40s %14d %14d\n", "chunks counted", count[0], count[1]);
}

// The fused path's forms (src/launch.cu's choice among them) and their timelines.
struct FusedForm {
  const char* name;
  int (*timeline)(long long* fields);  // kernel_params.h: read, or reset where fields is null
  bool persistent;
};
constexpr FusedForm kFusedForms[] = {{"64-channel", gdn2::kernels::fused_timeline_v64, false},
                                     {"128-channel", gdn2::kernels::fused_timeline_v128, false},
                                     {"128-channel GVA pair", gdn2::kernels::fused_timeline_v128_pair, false},
                                     {"128-channel persistent", gdn2::kernels::fused_timeline_v128_persistent, true},
                                     {"128-channel GVA pair persistent", gdn2::kernels::fused_timeline_v128_pair_persistent, true}};
const FusedForm& fused_form_of(int64_t T, int64_t N, int64_t hq, int64_t hv, int sms) {
  using namespace gdn2::kernels;
  const int64_t heads = N * hv;
  if (fused_slices(heads, sms) == 2) return kFusedForms[0];
  if (fused_gva_pair_persistent(heads, sms, hq, hv, T, N)) return kFusedForms[4];
  if (fused_gva_pair(heads, sms, hq, hv, T, N)) return kFusedForms[2];
  return fused_persistent(heads, sms, hq, hv, T, N) ? kFusedForms[3] : kFusedForms[1];
}

// Where the SMs' time goes between t0 and t1, given spans (CTAs or items: index into the caller's
// list, SM, begin, end), each SM's in the order of their begins: in spans, before an SM's first,
// between one span's end and the next one's begin on the same SM (each also to on_gap(index of the
// earlier span, gap)), after its last, and on SMs that took none; and each used SM's last end.
struct Span {
  size_t index;
  long long sm, begin, end;
};
struct SmSplit {
  double in_spans = 0, before = 0, between = 0, after = 0, unused = 0;
  int used = 0;
  std::vector<double> ends;  // each used SM's last end after t0, ns
};
template <class OnGap>
SmSplit split_by_sm(const std::vector<Span>& spans, long long t0, long long t1, int sms, OnGap on_gap) {
  std::vector<std::vector<const Span*>> per_sm(size_t(std::max(sms, 1)));
  for (const Span& x : spans)
    if (x.sm >= 0 && x.sm < sms) per_sm[size_t(x.sm)].push_back(&x);
  SmSplit r;
  for (auto& list : per_sm) {
    if (list.empty()) {
      r.unused += double(t1 - t0);
      continue;
    }
    ++r.used;
    std::sort(list.begin(), list.end(), [](const Span* a, const Span* b) { return a->begin < b->begin; });
    r.before += double(list.front()->begin - t0);
    r.after += double(t1 - list.back()->end);
    r.ends.push_back(double(list.back()->end - t0));
    for (size_t i = 0; i < list.size(); ++i) {
      r.in_spans += double(list[i]->end - list[i]->begin);
      if (i + 1 < list.size()) {
        const double gap = double(list[i + 1]->begin - list[i]->end);
        r.between += gap;
        on_gap(list[i]->index, gap);
      }
    }
  }
  return r;
}

// The persistent forms' items (rows by item: kernel_params.h, FusedTimelineField) on each SM in
// the order of their first products: where the SMs' time goes between the first item's start and
// the last one's end: in items (first products to the final state stored), between one item's end
// and the next one's first products on the same SM (what an item costs past its blocks), before
// an SM's first products, after its last item, or on SMs that took none; then each item's way from
// its claim to its first products, its time per block, and the SMs' ends.
void print_persistent_timeline(const std::vector<long long>& f, const char* form, int sms) {
  using namespace gdn2::kernels;
  struct Item {
    long long sm, claimed, first, end, blocks;
  };
  std::vector<Item> items;
  for (int r = 0; r < kFusedTimelineCtas; ++r) {
    const long long* x = &f[size_t(r) * kFusedTimelineFields];
    if (x[kFusedBlocks] > 0 && x[kFusedEndNs] > 0 && x[kFusedFirstNs] > 0)
      items.push_back({x[kFusedSm], x[kFusedStartNs], x[kFusedFirstNs], x[kFusedEndNs], x[kFusedBlocks]});
  }
  if (items.empty()) return;
  long long t0 = items[0].claimed, t1 = items[0].end;
  for (const Item& i : items) t0 = std::min(t0, i.claimed), t1 = std::max(t1, i.end);
  const double span = double(t1 - t0);
  std::vector<Span> spans;
  for (size_t i = 0; i < items.size(); ++i) spans.push_back({i, items[i].sm, items[i].first, items[i].end});
  std::vector<double> gaps, gaps_after_one_block;
  SmSplit split = split_by_sm(spans, t0, t1, sms, [&](size_t i, double gap) {
    (items[i].blocks == 1 ? gaps_after_one_block : gaps).push_back(gap);
  });
  std::vector<double>& ends = split.ends;
  auto median = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x.empty() ? 0.0 : x[x.size() / 2]; };
  const double total = span * sms;
  std::printf("  fused path (%s form): %zu items on %d of %d SMs over %.1f us (first claim to last end); the SMs' time:\n",
              form, items.size(), split.used, sms, span / 1e3);
  std::printf("    in items %.1f%%, between items %.1f%%, before an SM's first products %.1f%%, after its last item %.1f%%, "
              "SMs without one %.1f%%\n",
              100 * split.in_spans / total, 100 * split.between / total, 100 * split.before / total, 100 * split.after / total,
              100 * split.unused / total);
  std::printf("    between one item's end and the next one's first products, median us: %.2f after a longer item (%zu), "
              "%.2f after a 1-block one (%zu)\n",
              median(gaps) / 1e3, gaps.size(), median(gaps_after_one_block) / 1e3, gaps_after_one_block.size());
  std::vector<double> claim_to_first, per_block;
  for (const Item& i : items) {
    claim_to_first.push_back(double(i.first - i.claimed));
    per_block.push_back(double(i.end - i.first) / double(i.blocks));
  }
  std::sort(ends.begin(), ends.end());
  std::printf("    claim to first products median %.2f us; per block (first products to end / blocks) median %.3f us; "
              "the SMs' last ends after the first claim: min %.1f, median %.1f, max %.1f us\n",
              median(claim_to_first) / 1e3, median(per_block) / 1e3, ends.front() / 1e3, ends[ends.size() / 2] / 1e3,
              ends.back() / 1e3);
}

// The fused path's CTAs (fused.cuh, FusedTimelineField) of the call's form: where the SMs' time goes
// between the first CTA's start and the last one's end (a CTA per SM at a time): in CTAs, before an
// SM's first CTA, between CTAs, after its last, or on SMs that took none; each CTA's start-up (its
// start to its first block's products) and time per block; and the longest CTAs. The persistent
// forms: print_persistent_timeline.
void print_fused_timeline(const FusedForm& form, int sms) {
  using namespace gdn2::kernels;
  std::vector<long long> f(size_t(kFusedTimelineCtas) * kFusedTimelineFields);
  check(cudaError_t(form.timeline(f.data())), "fused_timeline");
  if (form.persistent) return print_persistent_timeline(f, form.name, sms);
  struct Cta {
    long long sm, start, first, end, seq, blocks, exact, issued, raw, formed, solved;
  };
  std::vector<Cta> ctas;
  for (int b = 0; b < kFusedTimelineCtas; ++b) {
    const long long* x = &f[size_t(b) * kFusedTimelineFields];
    if (x[kFusedBlocks] > 0 && x[kFusedEndNs] > 0)
      ctas.push_back({x[kFusedSm], x[kFusedStartNs], x[kFusedFirstNs], x[kFusedEndNs], x[kFusedSequence], x[kFusedBlocks],
                      x[kFusedExactBlocks], x[kFusedIssuedNs], x[kFusedRawNs], x[kFusedFormedNs], x[kFusedSolvedNs]});
  }
  if (ctas.empty()) return;
  long long t0 = ctas[0].start, t1 = ctas[0].end;
  for (const Cta& c : ctas) t0 = std::min(t0, c.start), t1 = std::max(t1, c.end);
  const double span = double(t1 - t0);
  std::vector<Span> spans;
  for (size_t i = 0; i < ctas.size(); ++i) spans.push_back({i, ctas[i].sm, ctas[i].start, ctas[i].end});
  const SmSplit split = split_by_sm(spans, t0, t1, sms, [](size_t, double) {});
  const double total = span * sms;
  std::printf("  fused path (%s form): %zu CTAs on %d of %d SMs over %.1f us (first start to last end); the SMs' time:\n",
              form.name, ctas.size(), split.used, sms, span / 1e3);
  std::printf("    in CTAs %.1f%%, before an SM's first CTA %.1f%%, between CTAs %.1f%%, after its last %.1f%%, SMs without one %.1f%%\n",
              100 * split.in_spans / total, 100 * split.before / total, 100 * split.between / total, 100 * split.after / total,
              100 * split.unused / total);
  auto median = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x.empty() ? 0.0 : x[x.size() / 2]; };
  std::vector<double> startup, per_block, duration, per_block_exact, per_block_plain;
  for (const Cta& c : ctas) {
    startup.push_back(double(c.first - c.start));
    const double pb = double(c.end - c.first) / double(c.blocks);
    per_block.push_back(pb);
    (c.exact > 0 ? per_block_exact : per_block_plain).push_back(pb);
    duration.push_back(double(c.end - c.start));
  }
  // The first block's way to its products, each step's median time from the CTA's start.
  std::vector<double> issued, raw, formed, solved;
  for (const Cta& c : ctas) {
    issued.push_back(double(c.issued - c.start));
    raw.push_back(double(c.raw - c.start));
    formed.push_back(double(c.formed - c.start));
    solved.push_back(double(c.solved - c.start));
  }
  std::printf("    start-up, median us from the CTA's start: raw inputs requested %.2f, landed %.2f, staged %.2f, "
              "A P T formed %.2f, first products %.2f\n",
              median(issued) / 1e3, median(raw) / 1e3, median(formed) / 1e3, median(solved) / 1e3, median(startup) / 1e3);
  std::vector<double> sorted = duration;
  std::sort(sorted.begin(), sorted.end());
  std::printf("    CTA duration us: min %.1f, median %.1f, max %.1f; start-up (start to first products) median %.2f us\n",
              sorted.front() / 1e3, sorted[sorted.size() / 2] / 1e3, sorted.back() / 1e3, median(startup) / 1e3);
  std::printf("    per block us (first products to end / blocks): median %.3f; CTAs with exact blocks %zu (median %.3f), without %zu (median %.3f)\n",
              median(per_block) / 1e3, per_block_exact.size(), median(per_block_exact) / 1e3, per_block_plain.size(),
              median(per_block_plain) / 1e3);
  std::vector<const Cta*> longest;
  for (const Cta& c : ctas) longest.push_back(&c);
  std::sort(longest.begin(), longest.end(), [](const Cta* a, const Cta* b) { return a->end - a->start > b->end - b->start; });
  std::printf("    the longest CTAs (sequence, blocks, exact blocks, start after the first us, duration us):");
  for (size_t i = 0; i < longest.size() && i < 5; ++i)
    std::printf(" (%lld, %lld, %lld, %.1f, %.1f)", longest[i]->seq, longest[i]->blocks, longest[i]->exact,
                (longest[i]->start - t0) / 1e3, (longest[i]->end - longest[i]->start) / 1e3);
  std::printf("\n");
}

void run_row(const Row& row, double clock_ghz) {
  const int H = row.heads, Hv = row.heads * row.group, K = gdn2::kHeadDimK, V = gdn2::kHeadDimV, N = row.n_seq;
  const int64_t T = row.length * N;
  std::mt19937_64 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  auto sigmoid = [](float x) { return 1.f / (1.f + std::exp(-x)); };
  auto softplus = [](float x) { return x > 20.f ? x : std::log1p(std::exp(x)); };
  std::vector<float> a(H), dt_bias(size_t(H) * K);
  for (int h = 0; h < H; ++h) {
    a[h] = 1.f + 15.f * uniform(rng);  // exp(A_log)
    for (int c = 0; c < K; ++c) {
      const float dt = std::exp(std::log(1e-3f) + (std::log(1e-1f) - std::log(1e-3f)) * uniform(rng));
      dt_bias[size_t(h) * K + c] = dt + std::log(-std::expm1(-dt));
    }
  }
  std::vector<float> q(size_t(T) * H * K), k(q.size()), b(q.size()), g(q.size());
  std::vector<float> v(size_t(T) * Hv * V), w(v.size());
  for (int64_t r = 0; r < T * H; ++r) {
    double nq = 0, nk = 0;
    for (int c = 0; c < K; ++c) {
      q[r * K + c] = normal(rng);
      k[r * K + c] = normal(rng);
      nq += double(q[r * K + c]) * q[r * K + c];
      nk += double(k[r * K + c]) * k[r * K + c];
    }
    const int h = int(r % H);
    for (int c = 0; c < K; ++c) {
      q[r * K + c] /= float(std::sqrt(nq));
      k[r * K + c] /= float(std::sqrt(nk));
      g[r * K + c] = -a[h] * softplus(normal(rng) + dt_bias[size_t(h) * K + c]);
      b[r * K + c] = sigmoid(normal(rng));
    }
  }
  for (auto& x : v) x = normal(rng);
  for (auto& x : w) x = sigmoid(normal(rng));
  std::vector<int64_t> cu(N + 1);
  for (int s = 0; s <= N; ++s) cu[s] = s * row.length;

  const auto qh = to_bf16(q), kh = to_bf16(k), bh = to_bf16(b), vh = to_bf16(v), wh = to_bf16(w);
  void* dq = upload(qh.data(), qh.size() * 2);
  void* dk = upload(kh.data(), kh.size() * 2);
  void* db = upload(bh.data(), bh.size() * 2);
  void* dv = upload(vh.data(), vh.size() * 2);
  void* dw = upload(wh.data(), wh.size() * 2);
  void* dg = upload(g.data(), g.size() * 4);
  void* dcu = upload(cu.data(), cu.size() * 8);
  void *dout = nullptr, *dws = nullptr;
  check(cudaMalloc(&dout, v.size() * 2), "cudaMalloc");
  const size_t ws_bytes = gdn2::forward_workspace_bytes(T, N, H);
  check(cudaMalloc(&dws, ws_bytes), "cudaMalloc");

  const int64_t key_shape[3] = {T, H, K}, value_shape[3] = {T, Hv, V}, cu_shape[1] = {N + 1};
  using gdn2::DType;
  auto keys = [&](void* p, DType t) { return gdn2::contiguous_view(p, t, 0, 3, key_shape); };
  auto values = [&](void* p) { return gdn2::contiguous_view(p, DType::kBFloat16, 0, 3, value_shape); };
  gdn2::ForwardArgs args;
  args.q = keys(dq, DType::kBFloat16);
  args.k = keys(dk, DType::kBFloat16);
  args.b = keys(db, DType::kBFloat16);
  args.g = keys(dg, DType::kFloat32);
  args.v = values(dv);
  args.w = values(dw);
  args.output = values(dout);
  args.cu_seqlens = gdn2::contiguous_view(dcu, DType::kInt64, 0, 1, cu_shape);
  args.scale = 1.f / std::sqrt(float(K));
  args.workspace = dws;
  args.workspace_bytes = ws_bytes;
  args.algorithm = row.algorithm;

  std::vector<long long> starts(kTimelineCtas), marks(size_t(kTimelineCtas) * kTimelineItems * kTimelineMarks);
  std::vector<int> items(kTimelineCtas);
  std::vector<long long> solver_marks(size_t(kTimelineCtas) * kTimelineItems * kSolverMarks);
  std::vector<int> solver_items(kTimelineCtas);
  for (int rep = 0; rep < 3; ++rep) {  // the last of three calls is read
    // Counts left by an earlier row's larger grid would pass for this row's CTAs.
    if (rep == 2) check(cudaError_t(gdn2::kernels::reset_phase1_timeline()), "reset_phase1_timeline");
    if (rep == 2) check(cudaError_t(gdn2::kernels::reset_pass_timeline()), "reset_pass_timeline");
    for (const FusedForm& form : kFusedForms)
      if (rep == 2) check(cudaError_t(form.timeline(nullptr)), "fused_timeline (reset)");
    const gdn2::Status st = gdn2::forward(args, nullptr);
    if (!st.ok()) {
      std::fprintf(stderr, "gdn2::forward: %s\n", st.message);
      std::exit(1);
    }
    check(cudaDeviceSynchronize(), "forward");
  }
  if (row.algorithm == gdn2::Algorithm::kFused) {  // no phase 1: the fused kernel's CTAs only
    int sms = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
    std::printf("\n%s: T = %lld, N = %d, Hq = %d, Hv = %d, the fused path forced\n", row.name, (long long)T, N, H, Hv);
    print_fused_timeline(fused_form_of(T, N, H, Hv, sms), sms);
    for (void* p : {dq, dk, db, dv, dw, dg, dcu, dout, dws}) cudaFree(p);
    return;
  }
  check(cudaError_t(gdn2::kernels::read_phase1_timeline(starts.data(), marks.data(), items.data(), solver_marks.data(),
                                                       solver_items.data())),
        "read_phase1_timeline");

  // Mean cycles per stage, for first items and later ones; the gap from an item's last mark to the
  // next item's first (the loop's hand-over to the next item).
  double sum[2][kTimelineMarks] = {}, gap = 0;
  int count[2] = {0, 0}, gaps = 0, ctas = 0, taken = 0;
  for (int cta = 0; cta < kTimelineCtas; ++cta) {
    if (items[cta] > 0) ++ctas;
    taken += items[cta];
    for (int it = 0; it < items[cta] && it < kTimelineItems; ++it) {
      const long long* m = &marks[(size_t(cta) * kTimelineItems + it) * kTimelineMarks];
      bool ordered = true;  // invalid slots record marks 0 and 6 only
      for (int j = 1; j < kTimelineMarks; ++j) ordered = ordered && m[j] > m[j - 1];
      if (!ordered) continue;
      const int kind = it == 0 ? 0 : 1;
      ++count[kind];
      for (int j = 1; j < kTimelineMarks; ++j) sum[kind][j - 1] += double(m[j] - m[j - 1]);
      sum[kind][kTimelineMarks - 1] += double(m[kTimelineMarks - 1] - m[0]);
      if (it + 1 < items[cta] && it + 1 < kTimelineItems) {
        gap += double(m[kTimelineMarks] - m[kTimelineMarks - 1]);  // the next item's mark 0
        ++gaps;
      }
    }
  }
  std::printf("\n%s: T = %lld, N = %d, H = %d; %d CTAs took %d items (first items: %d timed, later: %d)\n",
              row.name, (long long)T, N, H, ctas, taken, count[0], count[1]);
  std::printf("  %-40s %14s %14s\n", "stage (mean cycles, us at the max clock)", "first item", "later items");
  for (int j = 0; j < kTimelineMarks; ++j) {
    const char* name = j < kTimelineMarks - 1 ? kStages[j] : "whole item";
    double c[2];
    for (int kind = 0; kind < 2; ++kind) c[kind] = count[kind] ? sum[kind][j] / count[kind] : 0.0;
    std::printf("  %-40s %7.0f %5.2f  %7.0f %5.2f\n", name, c[0], c[0] / clock_ghz / 1e3, c[1],
                c[1] / clock_ghz / 1e3);
  }
  if (gaps) std::printf("  %-40s %13s  %7.0f %5.2f\n", "between items", "", gap / gaps, gap / gaps / clock_ghz / 1e3);

  // The solver, over every item handed to it but each CTA's first (the first waits for the factor
  // warps' whole first item): its steps, the whole item, and its wait from releasing one item to
  // receiving the next.
  double ssum[kSolverMarks] = {}, wait = 0;
  int scount = 0;
  for (int cta = 0; cta < kTimelineCtas; ++cta) {
    const int n = std::min(solver_items[cta], kTimelineItems);
    for (int it = 1; it < n; ++it) {
      const long long* m = &solver_marks[(size_t(cta) * kTimelineItems + it) * kSolverMarks];
      const long long* prev = m - kSolverMarks;
      for (int j = 1; j < kSolverMarks; ++j) ssum[j - 1] += double(m[j] - m[j - 1]);
      ssum[kSolverMarks - 1] += double(m[kSolverMarks - 1] - m[0]);
      wait += double(m[0] - prev[kSolverMarks - 1]);
      ++scount;
    }
  }
  if (scount) {
    std::printf("  the solver warpgroup, over the %d items after each CTA's first:\n", scount);
    for (int j = 0; j < kSolverMarks; ++j) {
      const char* name = j < kSolverMarks - 1 ? kSolverSteps[j] : "solver: whole item";
      std::printf("  %-40s %13s  %7.0f %5.2f\n", name, "", ssum[j] / scount, ssum[j] / scount / clock_ghz / 1e3);
    }
    std::printf("  %-40s %13s  %7.0f %5.2f\n", "solver: waiting for the next item", "", wait / scount,
                wait / scount / clock_ghz / 1e3);
  }

  // Each CTA's first item from the CTA's start (the latency until its factor block is stored), median
  // over the CTAs that end after it (on one sequence, those that leave their SMs to the state pass)
  // and over those that go on to more items.
  std::vector<double> first[2][3 + kSolverMarks];
  for (int cta = 0; cta < kTimelineCtas; ++cta) {
    if (items[cta] < 1 || solver_items[cta] < 1) continue;
    const long long* m = marks.data() + size_t(cta) * kTimelineItems * kTimelineMarks;
    const long long* sm = solver_marks.data() + size_t(cta) * kTimelineItems * kSolverMarks;
    bool ordered = m[0] > starts[cta];  // a valid first item: every mark after the previous one
    for (int j = 1; j < kTimelineMarks; ++j) ordered = ordered && m[j] > m[j - 1];
    for (int j = 1; j < kSolverMarks; ++j) ordered = ordered && sm[j] > sm[j - 1];
    if (!ordered) continue;
    auto& f = first[items[cta] > 1 ? 1 : 0];
    f[0].push_back(double(m[0] - starts[cta]));
    f[1].push_back(double(m[5] - m[0]));
    f[2].push_back(double(sm[0] - m[5]));
    for (int j = 1; j < kSolverMarks; ++j) f[2 + j].push_back(double(sm[j] - sm[j - 1]));
    f[2 + kSolverMarks].push_back(double(sm[kSolverMarks - 1] - starts[cta]));
  }
  auto median = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x.empty() ? 0.0 : x[x.size() / 2]; };
  std::printf("  each CTA's first item from the CTA's start (median cycles): %zu CTAs that end after it, %zu that go on\n",
              first[0][0].size(), first[1][0].size());
  for (int j = 0; j < 3 + kSolverMarks; ++j) {
    const char* name = j < 3 ? kFirstItemSteps[j] : j < 2 + kSolverMarks ? kSolverSteps[j - 3] : "CTA start -> solver's last mark";
    const double c[2] = {median(first[0][j]), median(first[1][j])};
    std::printf("  %-40s %7.0f %5.2f  %7.0f %5.2f\n", name, c[0], c[0] / clock_ghz / 1e3, c[1], c[1] / clock_ghz / 1e3);
  }
  print_pass_timeline(items, clock_ghz);
  for (void* p : {dq, dk, db, dv, dw, dg, dcu, dout, dws}) cudaFree(p);
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing to time\n");
    return 0;
  }
  int khz = 0;
  check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute");
  const double clock_ghz = khz / 1e6;
  std::printf("SM clock (max) %.3f GHz; cycles are SM clock cycles read by thread 0 after each stage's barrier\n",
              clock_ghz);
  for (const Row& row : kRows) {
    bool wanted = argc < 2;
    for (int i = 1; i < argc; ++i) wanted = wanted || std::strcmp(argv[i], row.name) == 0;
    if (wanted) run_row(row, clock_ghz);
  }
  return 0;
}
