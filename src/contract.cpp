// The contract of gdn2::forward: every metadata rule and its error message, in one place.
// Used by the C++ API and (through it) by the PyTorch op; nothing here touches device memory.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "contract.h"

namespace gdn2 {
namespace {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat32: return "float32";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFloat16: return "float16";
    default: return "an unsupported dtype";
  }
}

size_t dtype_bytes(DType t) {
  switch (t) {
    case DType::kBFloat16: return 2;
    case DType::kFloat32: return 4;
    case DType::kInt32: return 4;
    case DType::kInt64: return 8;
    case DType::kFloat16: return 2;
    default: return 1;
  }
}

Status fail(StatusCode code, const char* fmt, ...) {
  Status s;
  s.code = code;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(s.message, sizeof(s.message), fmt, ap);
  va_end(ap);
  return s;
}

void shape_string(const TensorView& t, char* buf, size_t n) {
  size_t used = std::snprintf(buf, n, "[");
  for (int i = 0; i < t.rank && i < 4 && used < n; ++i)
    used += std::snprintf(buf + used, n - used, i ? ", %lld" : "%lld", (long long)t.sizes[i]);
  if (t.rank > 4 && used < n) used += std::snprintf(buf + used, n - used, ", ...");
  if (used < n) std::snprintf(buf + used, n - used, "]");
}

int64_t numel(const TensorView& t) {
  int64_t n = 1;
  for (int i = 0; i < t.rank && i < 4; ++i) n *= t.sizes[i];
  return n;
}

bool is_contiguous(const TensorView& t) {
  int64_t expected = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    if (t.sizes[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.sizes[i];
  }
  return true;
}

// dtype, rank, device, contiguity and alignment of one tensor.
Status check_tensor(const char* name, const TensorView& t, DType dtype, int rank, const char* dims,
                    int device, size_t align) {
  if (t.data == nullptr)
    return fail(StatusCode::kInvalidArgument, "%s: expected a tensor %s, got none (null data)", name, dims);
  if (t.dtype != dtype)
    return fail(StatusCode::kInvalidArgument, "%s: expected dtype %s, got %s", name,
                dtype_name(dtype), dtype_name(t.dtype));
  if (t.rank != rank)
    return fail(StatusCode::kInvalidArgument, "%s: expected a %d-D tensor %s, got %d-D", name, rank,
                dims, t.rank);
  for (int i = 0; i < rank; ++i)
    if (t.sizes[i] < 0)
      return fail(StatusCode::kInvalidArgument, "%s: negative size in dimension %d", name, i);
  if (t.device < 0)
    return fail(StatusCode::kInvalidArgument, "%s: expected a CUDA tensor, got a host (CPU) tensor", name);
  if (t.device != device)
    return fail(StatusCode::kInvalidArgument,
                "%s: expected a tensor on cuda:%d (the device of q), got cuda:%d", name, device, t.device);
  if (!is_contiguous(t))
    return fail(StatusCode::kInvalidArgument, "%s: expected a contiguous (row-major) tensor", name);
  if (reinterpret_cast<uintptr_t>(t.data) % align != 0)
    return fail(StatusCode::kInvalidArgument, "%s: data pointer must be %zu-byte aligned", name, align);
  return Status{};
}

Status check_shape(const char* name, const TensorView& t, std::initializer_list<int64_t> want,
                   const char* dims) {
  int i = 0;
  bool same = true;
  for (int64_t w : want) same = same && t.sizes[i++] == w;
  if (same) return Status{};
  char got[96], exp[96];
  shape_string(t, got, sizeof(got));
  TensorView e;
  e.rank = static_cast<int>(want.size());
  i = 0;
  for (int64_t w : want) e.sizes[i++] = w;
  shape_string(e, exp, sizeof(exp));
  return fail(StatusCode::kInvalidArgument, "%s: expected shape %s = %s, got %s", name, dims, exp, got);
}

struct Range {
  const char* name;
  uintptr_t begin, end;
};

// The bytes a tensor spans: contiguous, or a state whose first stride may exceed its slot's size
// (check_state), whose last slot ends one slot's size past its start.
Range byte_range(const char* name, const TensorView& t) {
  uintptr_t b = reinterpret_cast<uintptr_t>(t.data);
  int64_t elems = numel(t);
  if (t.rank == 4 && t.sizes[0] > 1 && elems > 0)
    elems = (t.sizes[0] - 1) * t.strides[0] + t.sizes[1] * t.sizes[2] * t.sizes[3];
  return {name, b, b + static_cast<uintptr_t>(elems) * dtype_bytes(t.dtype)};
}

bool same_view(const TensorView& a, const TensorView& b) {
  if (a.data != b.data || a.dtype != b.dtype || a.rank != b.rank) return false;
  for (int i = 0; i < a.rank && i < 4; ++i)
    if (a.sizes[i] != b.sizes[i] || a.strides[i] != b.strides[i]) return false;
  return true;
}

constexpr int64_t kMaxStateSpan = int64_t(1) << 60;

// initial_state or final_state: fp32 or bf16 [slots, Hv, V, K] with each slot contiguous and slots
// `stride` elements apart (a multiple of 4, at least a slot's size; the kernels access 4 elements
// at a time at most, so 4 elements' bytes is the alignment); slots = N without state indices, any
// number >= 1 with them (a pool). `indices`, where defined: int32 [N], the slot of each sequence.
// (slots - 1) * stride is at most kMaxStateSpan elements.
Status check_state(const char* name, const char* indices_name, const TensorView& t, const TensorView& indices,
                   int device, int64_t N, int64_t Hv, int64_t V, int64_t K) {
  Status s;
  const bool pooled = indices.defined();
  const char* dims = pooled ? "[P, Hv, V, K]" : "[N, Hv, V, K]";
  if (pooled && !t.defined())
    return fail(StatusCode::kInvalidArgument, "%s: given without %s (the pool of states it indexes)", indices_name, name);
  if (!t.defined()) return s;
  // Contiguity is judged on one slot; the first stride below.
  if (t.dtype != DType::kFloat32 && t.dtype != DType::kBFloat16)
    return fail(StatusCode::kInvalidArgument, "%s: expected dtype float32 or bfloat16, got %s", name,
                dtype_name(t.dtype));
  TensorView slot = t;
  slot.sizes[0] = 1;
  if ((s = check_tensor(name, slot, t.dtype, 4, dims, device, 4 * dtype_bytes(t.dtype))).code != StatusCode::kOk)
    return s;
  if (t.sizes[0] < 0) return fail(StatusCode::kInvalidArgument, "%s: negative size in dimension 0", name);
  if (pooled) {
    if ((s = check_shape(name, t, {t.sizes[0], Hv, V, K}, dims)).code != StatusCode::kOk) return s;
    if (t.sizes[0] < 1)
      return fail(StatusCode::kInvalidArgument, "%s: expected a pool of at least one state slot, got 0", name);
  } else if ((s = check_shape(name, t, {N, Hv, V, K}, dims)).code != StatusCode::kOk) {
    return s;
  }
  const int64_t slot_elems = Hv * V * K;
  if (t.sizes[0] > 1 && (t.strides[0] < slot_elems || t.strides[0] % 4 != 0))
    return fail(StatusCode::kInvalidArgument,
                "%s: expected the first stride to be a multiple of 4 and at least Hv * V * K = %lld (one state "
                "slot), got %lld", name, (long long)slot_elems, (long long)t.strides[0]);
  // The slots' span in int64 (byte_range, the kernels' slot offsets): no tensor in memory comes near.
  if (t.sizes[0] > 1 && t.strides[0] > kMaxStateSpan / (t.sizes[0] - 1))
    return fail(StatusCode::kInvalidArgument,
                "%s: expected (slots - 1) * first stride to be at most 2^60 elements, got %lld slots %lld apart", name,
                (long long)t.sizes[0], (long long)t.strides[0]);
  if (!pooled) return s;
  if ((s = check_tensor(indices_name, indices, DType::kInt32, 1, "[N]", device, 4)).code != StatusCode::kOk) return s;
  return check_shape(indices_name, indices, {N}, "[N] (one slot per sequence)");
}

bool overlaps(const Range& a, const Range& b) {
  return a.begin < b.end && b.begin < a.end && a.begin != a.end && b.begin != b.end;
}

}  // namespace

TensorView contiguous_view(const void* data, DType dtype, int32_t device, int32_t rank,
                           const int64_t* sizes) {
  TensorView t;
  t.data = data;
  t.dtype = dtype;
  t.device = device;
  t.rank = rank;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (i < 4) {
      t.sizes[i] = sizes[i];
      t.strides[i] = stride;
    }
    stride *= sizes[i];
  }
  return t;
}

ProblemShape shape_of(const ForwardArgs& a) {
  ProblemShape s;
  s.T = a.q.sizes[0];
  s.Hq = a.q.sizes[1];
  s.Hv = a.v.sizes[1];
  s.N = a.cu_seqlens.sizes[0] - 1;
  return s;
}

size_t forward_workspace_bytes(int64_t T, int64_t N, int64_t Hq) {
  if (T < 1 || T > kMaxTokens || N < 1 || N > T || N > kMaxSequences || Hq < 1 || Hq > kMaxHeads) return 0;
  return workspace_layout(T, N, Hq).total_bytes;
}

size_t plan_workspace_bytes(const LaunchPlan& plan, const ProblemShape& sh) {
  const WorkspaceLayout ws = workspace_layout(sh.T, sh.N, sh.Hq);
  const bool chunked = plan.shorter == Algorithm::kChunked || plan.longer == Algorithm::kChunked;
  return chunked ? ws.total_bytes : ws.flags_bytes;
}

size_t forward_workspace_bytes(const ForwardArgs& a) {
  // Only what the plan depends on is read here; check_forward judges the rest.
  if (a.q.rank != 3 || a.v.rank != 3 || a.cu_seqlens.rank != 1 || a.cu_seqlens.sizes[0] < 2 || a.q.device < 0)
    return 0;
  const ProblemShape sh = shape_of(a);
  if (sh.T < 1 || sh.T > kMaxTokens || sh.N < 1 || sh.N > sh.T || sh.N > kMaxSequences || sh.Hq < 1 || sh.Hq > kMaxHeads ||
      sh.Hv < 1 || sh.Hv > kMaxHeads || sh.Hv % sh.Hq != 0 || a.max_seqlen < 0)
    return 0;
  if (a.algorithm != Algorithm::kAuto && a.algorithm != Algorithm::kChunked && a.algorithm != Algorithm::kRecurrent &&
      a.algorithm != Algorithm::kFused)
    return 0;
  return plan_workspace_bytes(plan_launch(a, sh, multiprocessor_count(a.q.device)), sh);
}

Status check_forward(const ForwardArgs& a) {
  LaunchPlan plan;
  return check_forward(a, &plan);
}

Status check_forward(const ForwardArgs& a, LaunchPlan* plan) {
  Status s;
  const int dev = a.q.device;
  if ((s = check_tensor("q", a.q, DType::kBFloat16, 3, "[T, Hq, K]", dev, 16)).code != StatusCode::kOk)
    return s;
  const int64_t T = a.q.sizes[0], Hq = a.q.sizes[1], K = a.q.sizes[2];
  if (T < 1 || T > kMaxTokens)
    return fail(StatusCode::kInvalidArgument, "q: expected 1 <= T <= %lld tokens, got T = %lld",
                (long long)kMaxTokens, (long long)T);
  if (Hq < 1 || Hq > kMaxHeads)
    return fail(StatusCode::kInvalidArgument, "q: expected 1 <= Hq <= %d key heads, got Hq = %lld",
                kMaxHeads, (long long)Hq);
  if (K != kHeadDimK)
    return fail(StatusCode::kInvalidArgument, "q: expected head dimension K = %d, got K = %lld",
                kHeadDimK, (long long)K);
  const struct { const char* name; const TensorView* t; DType dtype; } key_side[] = {
      {"k", &a.k, DType::kBFloat16}, {"g", &a.g, DType::kFloat32}, {"b", &a.b, DType::kBFloat16}};
  for (const auto& x : key_side) {
    if ((s = check_tensor(x.name, *x.t, x.dtype, 3, "[T, Hq, K]", dev, 16)).code != StatusCode::kOk) return s;
    if ((s = check_shape(x.name, *x.t, {T, Hq, K}, "[T, Hq, K] (as q)")).code != StatusCode::kOk) return s;
  }

  if ((s = check_tensor("v", a.v, DType::kBFloat16, 3, "[T, Hv, V]", dev, 16)).code != StatusCode::kOk)
    return s;
  const int64_t Hv = a.v.sizes[1], V = a.v.sizes[2];
  if (a.v.sizes[0] != T)
    return fail(StatusCode::kInvalidArgument, "v: expected %lld tokens (as q), got %lld",
                (long long)T, (long long)a.v.sizes[0]);
  if (V != kHeadDimV)
    return fail(StatusCode::kInvalidArgument, "v: expected head dimension V = %d, got V = %lld",
                kHeadDimV, (long long)V);
  if (Hv < 1 || Hv > kMaxHeads || Hv % Hq != 0)
    return fail(StatusCode::kInvalidArgument,
                "v: the number of value heads Hv = %lld must be a positive multiple of the key heads "
                "Hq = %lld (at most %d)", (long long)Hv, (long long)Hq, kMaxHeads);
  if ((s = check_tensor("w", a.w, DType::kBFloat16, 3, "[T, Hv, V]", dev, 16)).code != StatusCode::kOk)
    return s;
  if ((s = check_shape("w", a.w, {T, Hv, V}, "[T, Hv, V] (as v)")).code != StatusCode::kOk) return s;

  const TensorView& cu = a.cu_seqlens;
  if (cu.data == nullptr)
    return fail(StatusCode::kInvalidArgument, "cu_seqlens: expected an int32 or int64 tensor [N + 1], got none");
  if (cu.dtype != DType::kInt32 && cu.dtype != DType::kInt64)
    return fail(StatusCode::kInvalidArgument, "cu_seqlens: expected dtype int32 or int64, got %s",
                dtype_name(cu.dtype));
  if ((s = check_tensor("cu_seqlens", cu, cu.dtype, 1, "[N + 1]", dev, dtype_bytes(cu.dtype))).code !=
      StatusCode::kOk)
    return s;
  const int64_t N = cu.sizes[0] - 1;
  if (N < 1 || N > T)
    return fail(StatusCode::kInvalidArgument,
                "cu_seqlens: expected N + 1 offsets with 1 <= N <= T = %lld (every sequence has at least "
                "one token), got %lld entries", (long long)T, (long long)cu.sizes[0]);
  if (N > kMaxSequences)
    return fail(StatusCode::kInvalidArgument, "cu_seqlens: expected at most 2^30 sequences, got N = %lld",
                (long long)N);

  if ((s = check_state("initial_state", "initial_state_indices", a.initial_state, a.initial_state_indices, dev, N, Hv,
                       V, K)).code != StatusCode::kOk)
    return s;
  if ((s = check_tensor("output", a.output, DType::kBFloat16, 3, "[T, Hv, V]", dev, 16)).code !=
      StatusCode::kOk)
    return s;
  if ((s = check_shape("output", a.output, {T, Hv, V}, "[T, Hv, V]")).code != StatusCode::kOk) return s;
  if ((s = check_state("final_state", "final_state_indices", a.final_state, a.final_state_indices, dev, N, Hv, V,
                       K)).code != StatusCode::kOk)
    return s;
  if (!std::isfinite(a.scale))
    return fail(StatusCode::kInvalidArgument, "scale: expected a finite value, got %g", (double)a.scale);
  if (a.algorithm != Algorithm::kAuto && a.algorithm != Algorithm::kChunked && a.algorithm != Algorithm::kRecurrent &&
      a.algorithm != Algorithm::kFused)
    return fail(StatusCode::kInvalidArgument, "algorithm: expected kAuto (0), kChunked (1), kRecurrent (2) or kFused (3), got %d",
                int(a.algorithm));
  if (a.max_seqlen < 0)
    return fail(StatusCode::kInvalidArgument, "max_seqlen: expected 0 (unknown) or a length >= 1, got %lld",
                (long long)a.max_seqlen);

  // Outputs may not alias any input or each other: the kernels read inputs after writing outputs.
  // One exception: final_state may be initial_state itself (the same view), an in-place update in
  // which every slot is read by the CTAs that later write it.
  Range inputs[10] = {byte_range("q", a.q), byte_range("k", a.k), byte_range("v", a.v),
                      byte_range("g", a.g), byte_range("b", a.b), byte_range("w", a.w),
                      byte_range("cu_seqlens", a.cu_seqlens), {"initial_state", 0, 0},
                      {"initial_state_indices", 0, 0}, {"final_state_indices", 0, 0}};
  if (a.initial_state.defined()) inputs[7] = byte_range("initial_state", a.initial_state);
  if (a.initial_state_indices.defined()) inputs[8] = byte_range("initial_state_indices", a.initial_state_indices);
  if (a.final_state_indices.defined()) inputs[9] = byte_range("final_state_indices", a.final_state_indices);
  Range outputs[2] = {byte_range("output", a.output), {"final_state", 0, 0}};
  if (a.final_state.defined()) outputs[1] = byte_range("final_state", a.final_state);
  const bool in_place = states_in_place(a);
  for (const Range& o : outputs)
    for (const Range& i : inputs)
      if (overlaps(o, i) && !(in_place && &o == &outputs[1] && &i == &inputs[7]))
        return fail(StatusCode::kInvalidArgument, "%s: overlaps the input '%s' in memory%s", o.name, i.name,
                    &o == &outputs[1] && &i == &inputs[7] ? " (it may be initial_state itself, not part of it)" : "");
  if (overlaps(outputs[0], outputs[1]))
    return fail(StatusCode::kInvalidArgument, "final_state: overlaps 'output' in memory");

  // The workspace this call's plan needs (forward_workspace_bytes(args)): the flags alone unless
  // the chunked path may run.
  const ProblemShape sh = shape_of(a);
  *plan = plan_launch(a, sh, multiprocessor_count(dev));
  const size_t needed = plan_workspace_bytes(*plan, sh);
  if (a.workspace == nullptr || a.workspace_bytes < needed)
    return fail(StatusCode::kInvalidArgument,
                "workspace: expected at least %zu bytes (forward_workspace_bytes), got %zu%s",
                needed, a.workspace_bytes, a.workspace ? "" : " (null)");
  if (reinterpret_cast<uintptr_t>(a.workspace) % 256 != 0)
    return fail(StatusCode::kInvalidArgument, "workspace: pointer must be 256-byte aligned");
  const Range wsr = {"workspace", reinterpret_cast<uintptr_t>(a.workspace),
                     reinterpret_cast<uintptr_t>(a.workspace) + needed};
  for (const Range& i : inputs)
    if (overlaps(wsr, i))
      return fail(StatusCode::kInvalidArgument, "workspace: overlaps the input '%s' in memory", i.name);
  for (const Range& o : outputs)
    if (overlaps(wsr, o))
      return fail(StatusCode::kInvalidArgument, "workspace: overlaps '%s' in memory", o.name);

  return check_device(dev);
}

// kAuto's choice (docs/design.md, "Three algorithms"), from sizes alone (no read of cu_seqlens):
// the algorithm with the smallest estimated GPU time. The longest sequence L is at most T - N + 1
// (every sequence has a token), or the caller's max_seqlen hint. The estimates (microseconds) are
// fitted by bench/fit_auto.py to measured crossovers: the recurrent and chunked ones on the lent
// H200 (docs/performance.md, "The fused path for batches", step 4, and "The chunked estimate per
// round of pass CTAs"), the fused ones on an H100 since the exact path by columns ("kAuto's fused
// estimates refitted": the fused path is bound by the SMs, not HBM, B8x2K taking 290.3 us on both
// GPUs with the same kernels, while the chunked path is up to 30% slower on the H100's HBM); the
// 64-channel form's refitted again for the pair form ("The pair form's first tests, S1's cluster
// wait and kAuto's refit"), the 128-channel form's GVA pair fitted apart ("The GVA pair in the
// 128-channel form"):
//   recurrent: its N Hv kRecurrentSlices items, each a chain of L tokens: 3.3 + 0.195 L when every
//     item has an SM of its own, else 2 + rounds x max(kRecurrentRoundFloor, 1.3 + 0.27 L),
//     kRecurrentCtasPerSm items per SM per round (the floor: a round of 1-token items took 1.83-1.95
//     us on an H100, not 1.57, docs/performance.md, "Persistent forms everywhere");
//   fused (fused.cuh): N Hv s items (s = kernels::fused_slices), a CTA each, at most one per SM at
//     a time (G = min(items, SMs) at once); an SM runs a chain of at least ceil(L / 16) blocks and
//     on average s Hv (T + 15 N) / (16 G) at most: a_s + c_s max(both) + o_s ceil(items / G), with
//     the GVA pair's own constants where it runs (s = 1, an even Hv / Hq), and the persistent
//     form's (and its GVA pair's) where it runs (kernels::fused_persistent,
//     kernels::fused_gva_pair_persistent: a CTA (cluster) per SM (two) taking the items in turn, so
//     o is what an item costs its CTA past its blocks, not a CTA's start); only
//     up to kFusedMaxSequences sequences, since each of its CTAs checks all N + 1 offsets of
//     cu_seqlens;
//   chunked: phase 1's Hq (T + 63 N) / 64 items at most in rounds of SMs, then the pass's CTAs
//     (kernels::pass_width w), each a chain of its sequence's chunks, at least ceil(L / 64) and on
//     average Hv (128 / w) (T + 63 N) / (64 SMs) at most: a + b rounds + c_w max(both), plus for
//     the 128-channel pass r128 per round of its N Hv CTAs (each CTA's start; without it the
//     estimate overstated the long GVA-2 rows by 12-17%: docs/performance.md, "The chunked
//     estimate per round of pass CTAs").
//   The fused estimate is weighed by kFusedMargin: the fused path's time also depends on how many
//   of its blocks take the exact path (strong decays), which sizes cannot show (bench/fit_auto.py
//   reports the picks' regrets with the same margin). In the 128-channel form the margin is 1: its
//   estimate overstates the mixed batches by 5-13% already.
constexpr int64_t kFusedMaxSequences = 4096;
constexpr double kFusedMarginV64 = 1.05, kFusedMarginV128 = 1.0;
struct FusedEstimate {
  double a, c, o;  // us, us per block of the chain, us per round of CTAs
};
// The pair form's (kFusedV64) refitted on an H100 once its waits suspended and it started behind
// the previous grid (bench/fit_auto.py on both crossover sets; docs/performance.md, "The pair form
// behind the previous grid": over 79 shapes the picks' regret 1.012 -> 1.003 geomean, max 1.254 ->
// 1.083).
constexpr FusedEstimate kFusedV64 = {7.63, 1.034, 0}, kFusedV128 = {4.40, 1.940, 9.03};
// The 128-channel form's GVA pair (kernels::fused_gva_pair: an even number of value heads per key
// head, sequences of 128 tokens on average), fitted apart on an H100 (bench/fit_auto.py --gva-pair,
// docs/performance.md, "The GVA pair in the 128-channel form", steps 7 and 8).
constexpr FusedEstimate kFusedV128Pair = {16.15, 1.498, 9.12};
// The 128-channel form on persistent CTAs (kernels::fused_persistent: at most 4,096 sequences) and
// its GVA pair on persistent clusters (kernels::fused_gva_pair_persistent: at most 256 sequences),
// which run within one round of the SMs as past it, each fitted apart on an H100 on rows past one
// round (bench/fit_auto.py --gva-pair --persistent, docs/performance.md, "Persistent forms
// everywhere"; refitted when their consumers came to store the state by quads and pairs of
// channels: "The state by quads of channels"). The same estimates price one round: over 79
// crossover shapes their picks' regret was 1.006 (geomean), and a refit with one round's rows
// (--persistent-one-round) gave the same picks ("The persistent forms within one round").
constexpr FusedEstimate kFusedV128Persistent = {5.98, 1.817, 2.91};
constexpr FusedEstimate kFusedV128PairPersistent = {19.19, 1.474, 1.69};
constexpr double kRecurrentRoundFloor = 1.88;  // us per round of recurrent CTAs, at least
struct ChunkedEstimate {
  double a, b, c32, c64, c128;  // us, us per round of phase 1, us per chunk of the pass's chain (width 32, 64, 128)
  double r128;                   // us per round of the 128-channel pass's CTAs
};
constexpr ChunkedEstimate kChunked = {4.321, 9.883, 2.128, 2.359, 3.246, 3.117};
// Where the sizes leave the longest length anywhere in [ceil(T / N), T - N + 1] and the picks at its
// two ends differ, the device chooses between those two paths (plan_launch): bisection finds the
// first length at which the longer end's pick wins over the shorter end's, by the same rule
// restricted to the two (pick_among). Where a third path wins somewhere in between (20 x 4 tokens of
// 8 heads: recurrent, then fused, then chunked as the longest length grows), the device's pick is
// the faster of the two ends' by the estimates, never slower than the longer end's alone, which the
// host would otherwise keep. The path that does not run still starts its CTAs, which read
// cu_seqlens and leave: the recurrent kernel and the fused path's persistent forms a round of the
// SMs at most, the chunked path phase 1's persistent grid and its pass's N Hv (128 / width) CTAs.
// Those cost about 0.3-0.8 us per round of the SMs (the 128-channel pass's CTAs on an H100,
// 31 to 124 rounds: docs/performance.md, "kAuto's choice on the device for many sequences"), a
// few percent of what the path that runs takes per round of its own, so the choice is made on the
// device however many rounds that is. (Until then the host kept the longer end's pick past 16
// rounds of either path's CTAs, counting the persistent forms as one-item grids: 256 sequences of
// 64 tokens of 16 heads took the chunked path, 713 us, where the fused path took 317.)
namespace {

// The three estimates (us; the fused one weighed by its margin) for the longest length `longest`.
struct Estimates {
  double recurrent, fused, chunked;
};
Estimates estimate(const ProblemShape& sh, int64_t sms, int64_t longest) {
  const double L = double(longest);
  auto ceil_div = [](int64_t x, int64_t y) { return double((x + y - 1) / y); };
  Estimates e;
  const int64_t rec_items = sh.N * sh.Hv * kernels::kRecurrentSlices;
  e.recurrent = rec_items <= sms ? 3.3 + 0.195 * L
                                 : 2.0 + ceil_div(rec_items, kernels::kRecurrentCtasPerSm * sms) *
                                             std::max(kRecurrentRoundFloor, 1.3 + 0.27 * L);
  const int slices = kernels::fused_slices(sh.N * sh.Hv, sms);
  const int64_t items = sh.N * sh.Hv * slices, grid = std::min(items, sms);
  const bool gva_pair = kernels::fused_gva_pair(sh.N * sh.Hv, sms, sh.Hq, sh.Hv, sh.T, sh.N);
  const bool persistent = kernels::fused_persistent(sh.N * sh.Hv, sms, sh.Hq, sh.Hv, sh.T, sh.N);
  const bool pair_persistent = kernels::fused_gva_pair_persistent(sh.N * sh.Hv, sms, sh.Hq, sh.Hv, sh.T, sh.N);
  const FusedEstimate& f = slices == 2      ? kFusedV64
                           : pair_persistent ? kFusedV128PairPersistent
                           : gva_pair        ? kFusedV128Pair
                           : persistent      ? kFusedV128Persistent
                                             : kFusedV128;
  const double fused_chain = std::max(ceil_div(longest, 16), ceil_div(slices * sh.Hv * (sh.T + 15 * sh.N), 16 * grid));
  const double fused_us = sh.N > kFusedMaxSequences ? HUGE_VAL : f.a + f.c * fused_chain + f.o * ceil_div(items, grid);
  e.fused = (slices == 2 ? kFusedMarginV64 : kFusedMarginV128) * fused_us;
  const int width = kernels::pass_width(sh.N * sh.Hv, sms);
  const int64_t chunks64 = sh.T + 63 * sh.N;  // 64 x an upper bound of the chunk count
  const double pass_chain = std::max(ceil_div(longest, 64), ceil_div(sh.Hv * (kHeadDimV / width) * chunks64, 64 * sms));
  e.chunked = kChunked.a + kChunked.b * ceil_div(sh.Hq * chunks64, 64 * sms) +
              (width == 32 ? kChunked.c32 : width == 64 ? kChunked.c64 : kChunked.c128) * pass_chain +
              (width == 128 ? kChunked.r128 * ceil_div(sh.N * sh.Hv, sms) : 0.0);
  return e;
}

// The pick among `among` (a bit per Algorithm) by the estimates: recurrent where it is no slower
// than the fused path and faster than the chunked one, else the fused path where it is faster than
// the chunked one. Restricted to two paths it is the same rule between those two.
Algorithm pick_among(const Estimates& e, unsigned among) {
  auto in = [&](Algorithm x) { return (among >> int(x) & 1u) != 0; };
  const double fused = in(Algorithm::kFused) ? e.fused : HUGE_VAL;
  const double chunked = in(Algorithm::kChunked) ? e.chunked : HUGE_VAL;
  if (in(Algorithm::kRecurrent) && e.recurrent <= fused && e.recurrent < chunked) return Algorithm::kRecurrent;
  if (in(Algorithm::kFused) && fused < chunked) return Algorithm::kFused;
  return in(Algorithm::kChunked) ? Algorithm::kChunked : in(Algorithm::kFused) ? Algorithm::kFused : Algorithm::kRecurrent;
}
constexpr unsigned kAllPaths = 1u << int(Algorithm::kChunked) | 1u << int(Algorithm::kRecurrent) | 1u << int(Algorithm::kFused);

// The paths kAuto may take: all three, but the chunked path only where its workspace (the factor
// blocks, sized for the most chunks the sizes allow: floor(T / 64) + N per key head) is at most
// kAutoWorkspaceRatio times the call's token bytes (q, k, g, b, v, w and the output), or at most
// kAutoWorkspaceFloor. One long sequence's factor blocks take about its token bytes with MHA (2,056
// bytes per token and key head against 2,048), fewer with GVA (0.73 times at two value heads per key);
// many short sequences take a whole block each (past 4,096 sequences, where the fused path is not
// a candidate, 16,384 sequences of 4 tokens of 16 key heads would ask for 36.7 GB against 3.0 GB of
// tokens). There kAuto keeps to the recurrent and fused paths, which need 1,280 bytes of workspace
// and are correct for any length; an explicit kChunked still gets the chunked path.
constexpr double kAutoWorkspaceRatio = 4.0;
constexpr double kAutoWorkspaceFloor = double(size_t(1) << 30);
unsigned auto_candidates(const ProblemShape& sh) {
  const double token_bytes = double(sh.T) * double(sh.Hq * kHeadDimK * (2 + 2 + 4 + 2) + sh.Hv * kHeadDimV * (2 + 2 + 2));
  const double chunked_bytes = double(workspace_layout(sh.T, sh.N, sh.Hq).total_bytes);
  const bool chunked = chunked_bytes <= std::max(kAutoWorkspaceRatio * token_bytes, kAutoWorkspaceFloor);
  return chunked ? kAllPaths : kAllPaths & ~(1u << int(Algorithm::kChunked));
}

}  // namespace

LaunchPlan plan_launch(const ForwardArgs& a, const ProblemShape& sh, int64_t sms) {
  LaunchPlan plan;
  plan.shorter = plan.longer = choose_algorithm(a, sh, sms);
  if (a.algorithm != Algorithm::kAuto || a.max_seqlen > 0 || sh.N < 2) return plan;
  int64_t lo = (sh.T + sh.N - 1) / sh.N, hi = sh.T - sh.N + 1;
  const Algorithm shorter = pick_among(estimate(sh, sms, lo), auto_candidates(sh));
  if (shorter == plan.longer) return plan;
  const unsigned pair = 1u << int(shorter) | 1u << int(plan.longer);
  auto between = [&](int64_t length) { return pick_among(estimate(sh, sms, length), pair); };
  while (hi - lo > 1) {  // between(lo) == shorter, between(hi) == plan.longer
    const int64_t mid = lo + (hi - lo) / 2;
    (between(mid) == shorter ? lo : hi) = mid;
  }
  plan.shorter = shorter;
  plan.length = hi;
  return plan;
}

Algorithm choose_algorithm(const ForwardArgs& a, const ProblemShape& sh, int64_t sms) {
  if (a.algorithm != Algorithm::kAuto) return a.algorithm;
  const int64_t longest = a.max_seqlen > 0 ? std::min(a.max_seqlen, sh.T - sh.N + 1) : sh.T - sh.N + 1;
  return pick_among(estimate(sh, sms, longest), auto_candidates(sh));
}

bool states_in_place(const ForwardArgs& a) {
  return a.final_state.defined() && same_view(a.initial_state, a.final_state);
}

}  // namespace gdn2
