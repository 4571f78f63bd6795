// Host dispatch: the contract check, the choice of algorithm (src/contract.cpp), and the launches
// on the caller's stream: the recurrent or the fused path's one kernel, or the chunked path's two
// (chunk_factors, then state_pass) behind one memset where something must start at zero (the ready
// words of the 32-channel pass, phase 1's work counter); where kAuto's choice is on the device
// (plan_launch), two paths' launches, of which one runs, the second behind the first
// (kernels::DeviceChoice). No synchronisation, no allocation.
#include <algorithm>
#include <atomic>
#include <cstdio>

#include <cuda_runtime.h>

#include "contract.h"
#include "kernels/kernel_params.h"

namespace gdn2 {

namespace {

Status cuda_failure(const char* what, int err) {
  Status s;
  s.code = StatusCode::kCudaError;
  std::snprintf(s.message, sizeof(s.message), "%s failed: %s", what,
                cudaGetErrorString(static_cast<cudaError_t>(err)));
  return s;
}

// Which kernels of a call run is kAuto's choice on the device where the plan says so (LaunchPlan).
struct PathChoice {
  kernels::DeviceChoice choice = kernels::kAlwaysRuns;
  int64_t length = 0;
  uint64_t* zero_at_start = nullptr;  // the shorter path's: the chunked path's work counter (kernel_params.h)
  int* fused_claims = nullptr;        // the fused path's persistent form's counter, zeroed (fused_claims)
};

kernels::Sequences sequences_of(const ForwardArgs& a, const ProblemShape& sh, PathChoice c = {}) {
  kernels::Sequences seq;
  seq.cu_seqlens = a.cu_seqlens.data;
  seq.cu_int64 = a.cu_seqlens.dtype == DType::kInt64;
  seq.T = sh.T;
  seq.N = int(sh.N);
  seq.choice = c.choice;
  seq.choice_length = c.length;
  return seq;
}

template <typename T>
T* at(void* base, size_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

// The value side, outputs and sequences, as both paths read them.
kernels::StatePassParams value_params(const ForwardArgs& a, const ProblemShape& sh, PathChoice c) {
  kernels::StatePassParams s;
  s.seq = sequences_of(a, sh, c);
  s.Hq = int(sh.Hq);
  s.Hv = int(sh.Hv);
  s.scale = a.scale;
  s.v = static_cast<const uint16_t*>(a.v.data);
  s.w = static_cast<const uint16_t*>(a.w.data);
  s.out = static_cast<uint16_t*>(const_cast<void*>(a.output.data));
  // The states as slots (kernels::StatePassParams): one per sequence, or a pool with indices.
  if (a.initial_state.defined()) {
    s.initial_state = a.initial_state.data;
    s.initial_bf16 = a.initial_state.dtype == DType::kBFloat16;
    s.initial_index = static_cast<const int*>(a.initial_state_indices.data);
    s.initial_slots = a.initial_state.sizes[0];
    s.initial_stride = a.initial_state.strides[0];
  }
  if (a.final_state.defined()) {
    s.final_state = const_cast<void*>(a.final_state.data);
    s.final_bf16 = a.final_state.dtype == DType::kBFloat16;
    s.final_index = static_cast<const int*>(a.final_state_indices.data);
    s.final_slots = a.final_state.sizes[0];
    s.final_stride = a.final_state.strides[0];
  }
  return s;
}

// Where the fused path would take its persistent form (kernel_params.h, fused_persistent) past one
// round of its CTAs (clusters), the word of the workspace that counts its claimed items; the call
// zeroes it by a memset node before its first kernel (forward), so that under kAuto's choice on the
// device nothing stands between the two paths' kernels. Null elsewhere: within one round each CTA
// (cluster) has its own item, and its claims add 0 to a word past any item count (fused.cuh,
// g_no_claims), so the call has no memset node (about 2 us of a graph on the small batches:
// docs/performance.md, "The persistent forms within one round").
int* fused_claims(const ForwardArgs& a, const ProblemShape& sh, const LaunchPlan& plan) {
  const bool fused = plan.longer == Algorithm::kFused || (plan.on_device() && plan.shorter == Algorithm::kFused);
  const int64_t sms = multiprocessor_count(a.q.device), heads = sh.N * sh.Hv;
  const bool pair = kernels::fused_gva_pair_persistent(heads, sms, sh.Hq, sh.Hv, sh.T, sh.N);
  const bool persistent = pair || kernels::fused_persistent(heads, sms, sh.Hq, sh.Hv, sh.T, sh.N);
  const bool past_one_round = pair ? heads / 2 > sms / 2 : heads > sms;  // items over CTAs (clusters)
  if (!fused || !persistent || !past_one_round) return nullptr;
  return at<int>(a.workspace, workspace_layout(sh.T, sh.N, sh.Hq).flags + kFusedClaimsOffset);
}

// The one-launch paths (recurrent.cu, fused_v64.cu / fused_v128.cu / fused_v128_persistent.cu /
// fused_v128_pair.cu: kernel_params.h, fused_slices): the same parameters; of the workspace at
// most the chunked path's work counter, zeroed where kAuto's choice on the device makes this the
// shorter path (PathChoice::zero_at_start), and the fused persistent form's claims.
int launch_one_kernel(const ForwardArgs& a, const ProblemShape& sh, bool fused, PathChoice c, Stream stream) {
  kernels::RecurrentParams r;
  r.value = value_params(a, sh, c);
  r.q = static_cast<const uint16_t*>(a.q.data);
  r.k = static_cast<const uint16_t*>(a.k.data);
  r.b = static_cast<const uint16_t*>(a.b.data);
  r.g = static_cast<const float*>(a.g.data);
  r.sms = multiprocessor_count(a.q.device);
  r.zero_at_start = c.zero_at_start;
  r.fused_claims = c.fused_claims;
  if (!fused) return kernels::launch_recurrent(r, stream);
  if (kernels::fused_slices(sh.N * sh.Hv, r.sms) == 2) return kernels::launch_fused_v64(r, stream);
  if (kernels::fused_gva_pair_persistent(sh.N * sh.Hv, r.sms, sh.Hq, sh.Hv, sh.T, sh.N))
    return kernels::launch_fused_v128_pair_persistent(r, stream);
  if (kernels::fused_gva_pair(sh.N * sh.Hv, r.sms, sh.Hq, sh.Hv, sh.T, sh.N)) return kernels::launch_fused_v128_pair(r, stream);
  if (kernels::fused_persistent(sh.N * sh.Hv, r.sms, sh.Hq, sh.Hv, sh.T, sh.N)) return kernels::launch_fused_v128_persistent(r, stream);
  return kernels::launch_fused_v128(r, stream);
}

int launch_chunked(const ForwardArgs& a, const ProblemShape& sh, PathChoice c, Stream stream);

int launch_path(const ForwardArgs& a, const ProblemShape& sh, Algorithm path, PathChoice c, Stream stream) {
  return path == Algorithm::kChunked ? launch_chunked(a, sh, c, stream)
                                     : launch_one_kernel(a, sh, path == Algorithm::kFused, c, stream);
}

}  // namespace

// Multiprocessor count of a device, looked up once (no synchronisation).
int multiprocessor_count(int device) {
  static std::atomic<int> known[64];
  const bool cached = device >= 0 && device < 64;
  int n = cached ? known[device].load(std::memory_order_relaxed) : 0;
  if (n == 0) {
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n <= 0) {
      (void)cudaGetLastError();  // no error left behind for the caller
      n = 132;
    }
    if (cached) known[device].store(n, std::memory_order_relaxed);
  }
  return n;
}

Status check_device(int device) {
  // 0 = not looked up yet, 1 = sm_90, 2 = something else. Devices beyond 64 are looked up each time.
  static std::atomic<int> known[64];
  const int cached = device >= 0 && device < 64 ? known[device].load(std::memory_order_relaxed) : 0;
  int major = 0, minor = 0;
  if (cached == 0) {
    cudaError_t e1 = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaError_t e2 = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (e1 != cudaSuccess || e2 != cudaSuccess) {
      (void)cudaGetLastError();  // reported here
      Status s;
      s.code = StatusCode::kUnsupportedDevice;
      std::snprintf(s.message, sizeof(s.message), "q: cannot query CUDA device %d: %s", device,
                    cudaGetErrorString(e1 != cudaSuccess ? e1 : e2));
      return s;
    }
    if (device >= 0 && device < 64) known[device].store(major == 9 ? 1 : 2, std::memory_order_relaxed);
  }
  if ((cached == 0 && major != 9) || cached == 2) {
    Status s;
    s.code = StatusCode::kUnsupportedDevice;
    std::snprintf(s.message, sizeof(s.message),
                  "q: gdn2 kernels are built for Hopper (sm_90a); device %d is not a compute-capability 9.0 GPU",
                  device);
    return s;
  }
  return Status{};
}

Status forward(const ForwardArgs& a, Stream stream) {
  LaunchPlan plan;
  Status st = check_forward(a, &plan);
  if (!st.ok()) return st;
  const ProblemShape sh = shape_of(a);
  int prev_device = -1;
  cudaGetDevice(&prev_device);
  if (prev_device != a.q.device) cudaSetDevice(a.q.device);
  int* const claims = fused_claims(a, sh, plan);
  int err = claims ? int(cudaMemsetAsync(claims, 0, sizeof(int), reinterpret_cast<cudaStream_t>(stream))) : 0;
  if (err == 0 && !plan.on_device()) {
    err = launch_path(a, sh, plan.longer, PathChoice{kernels::kAlwaysRuns, 0, nullptr, claims}, stream);
  } else if (err == 0) {  // both paths; the kernels of one of them return at once (kernels::DeviceChoice)
    // The shorter path's kernel comes first and zeroes the chunked path's work counter (whether or
    // not its schedule is dynamic: a word of the workspace, which then serves no one else).
    uint64_t* counter = nullptr;
    if (plan.longer == Algorithm::kChunked)
      counter = at<uint64_t>(a.workspace, workspace_layout(sh.T, sh.N, sh.Hq).flags + kWorkCounterOffset);
    err = launch_path(a, sh, plan.shorter, PathChoice{kernels::kRunsIfAllShorter, plan.length, counter, claims}, stream);
    if (err == 0)
      err = launch_path(a, sh, plan.longer, PathChoice{kernels::kRunsIfOneAsLong, plan.length, nullptr, claims}, stream);
  }
  if (prev_device != a.q.device && prev_device >= 0) cudaSetDevice(prev_device);
  if (err == 0) return Status{};
  (void)cudaGetLastError();  // the failure is reported here, not left for the caller's next check
  return cuda_failure("gdn2 kernel launch", err);
}

namespace {

// The chunked path: phase 1 (chunk_factors), then the state pass, behind a memset where something
// must start at zero.
int launch_chunked(const ForwardArgs& a, const ProblemShape& sh, PathChoice c, Stream stream) {
  const WorkspaceLayout ws = workspace_layout(sh.T, sh.N, sh.Hq);
  // The widest value slices whose CTAs (one per SM) still fill at most one wave: more SMs on a
  // few sequences. Past one wave of 64-channel slices, 128 channels per CTA: each chunk's factors
  // are copied and read once for the whole head, and there are half as many waves. The
  // register-state passes (64 and 128 channels) read T and M packed (kernel_params.h,
  // factor_block): on those problems the factor bytes bound the pass; the 32-channel pass, bound by
  // the chain of its chunks, copies them whole.
  const int64_t heads = sh.N * sh.Hv, sms = multiprocessor_count(a.q.device);
  const int slice = kernels::pass_width(heads, sms);

  kernels::ChunkFactorsParams f;
  f.seq = sequences_of(a, sh, c);
  f.Hq = int(sh.Hq);
  f.slots = ws.slots;
  f.q = static_cast<const uint16_t*>(a.q.data);
  f.k = static_cast<const uint16_t*>(a.k.data);
  f.b = static_cast<const uint16_t*>(a.b.data);
  f.g = static_cast<const float*>(a.g.data);
  f.factors = at<float>(a.workspace, ws.factors);
  f.packed_triangles = slice != 32;
  // Where phase 1 has more than one round of items, the 32-channel pass runs alongside it
  // (docs/design.md, "Two phases"): phase 1 publishes each chunk's factor block (ready words,
  // zeroed below) and the pass copies each block as soon as it is published. Below 40 rounds of
  // items on the SMs the pass leaves, every SM first takes one phase-1 item, then the CTAs from
  // steady_ctas on leave their SMs to the pass while the others take the rest of the items (the
  // lead round); from 40 rounds on, phase 1 runs on the SMs the pass leaves from the start.
  // Measured on one sequence of 16 heads (docs/performance.md, 04bfbb6): the lead round against
  // the pass behind phase 1 (the rule below 5 rounds until then) or beside it from the start:
  // 768 tokens -11.5%, 1024 -8.4%, 2048 -6.8%, 4288 -4.4%, 8192 (30 rounds) -2.4%, 16K (60
  // rounds) even, 32K (121 rounds) +1.1 to +3.1%; more lead rounds were slower at every length.
  // With more pass CTAs than half the SMs phase 1 would run on too few. One sequence only: there
  // phase 1 runs its static schedule (below); overlapped passes next to the work counter of
  // several sequences are not tested yet. Elsewhere the pass waits for phase 1 to complete.
  constexpr int64_t kLeadRoundMaxRounds = 40;
  const int64_t pass_ctas = heads * (kHeadDimV / 32), items = ws.slots * sh.Hq;
  // (Never under kAuto's choice on the device, which needs N >= 2: a skipped phase 1 publishes no
  // block for an overlapped pass to wait for.)
  const bool overlapped = sh.N == 1 && c.choice == kernels::kAlwaysRuns && slice == 32 && 2 * pass_ctas <= sms && items > sms;
  const bool lead_round = overlapped && items < kLeadRoundMaxRounds * (sms - pass_ctas);
  f.ctas = int(overlapped && !lead_round ? sms - pass_ctas : sms);
  f.ready = overlapped ? at<int>(a.workspace, ws.ready) : nullptr;
  // The first flag word belongs to validate_values. Each phase-1 CTA writes its own fault word, so
  // those need no zeroing.
  f.fault_words = at<int>(a.workspace, ws.flags + kFaultWordsOffset);
  // Phase 1's schedule. Static (no counter to zero) where it balances as well as the counter: one
  // sequence (every item whose slot no chunk owns comes after every item that has one, so the
  // CTAs' counts of real items differ by at most one) or a single round of items. Else the dynamic
  // counter: with several sequences the empty slots fall anywhere, and a static schedule measured
  // 3.5-9% slower on S3, N64-MIXED and B8x2K (docs/performance.md).
  const int64_t phase1_grid = kernels::phase1_ctas(items, f.ctas);
  const bool dynamic_schedule = sh.N > 1 && items > phase1_grid;
  f.work_counter = dynamic_schedule ? at<uint64_t>(a.workspace, ws.flags + kWorkCounterOffset) : nullptr;
  f.steady_ctas = int(lead_round ? std::min(sms - pass_ctas, phase1_grid) : phase1_grid);

  // Past one wave of the state pass, its CTAs start longest sequence first (an order that phase 1
  // computes on the device: ChunkFactorsParams::order), so that the short sequences fill in behind
  // the long ones rather than a long one starting last. Ranking costs phase 1's idle solver warps
  // N^2 / (128 x grid) bound pairs per lane, hence the cap on N; past it, and on one sequence, the
  // CTAs keep sequence order.
  constexpr int64_t kMaxOrderedSequences = 2048;
  static_assert(kMaxOrderedSequences <= 65535, "the ordered pass puts the sequences on gridDim.y");
  const bool ordered = slice == 128 && heads > sms && sh.N > 1 && sh.N <= kMaxOrderedSequences;
  f.order = ordered ? at<int>(a.workspace, ws.order) : nullptr;

  kernels::StatePassParams s = value_params(a, sh, c);
  s.slots = ws.slots;
  s.factors = f.factors;
  s.fault_words = f.fault_words;
  s.fault_count = int(phase1_grid);
  s.ready = f.ready;
  s.order = f.order;

  // What must be zero before phase 1: the ready words (overlapped: one sequence) or the work
  // counter (the dynamic schedule: several sequences), each by its own memset; today never both.
  // Neither: no memset.
  const cudaStream_t cs = reinterpret_cast<cudaStream_t>(stream);
  int err = 0;
  if (f.ready != nullptr) err = int(cudaMemsetAsync(f.ready, 0, sizeof(int) * size_t(sh.Hq) * size_t(ws.slots), cs));
  // (Where this is the longer path under kAuto's choice on the device, the shorter path's kernel,
  // launched first, zeroes the counter; plan_launch never makes the chunked path the shorter one,
  // but if it did, the memset would stay.)
  if (err == 0 && f.work_counter != nullptr && c.choice != kernels::kRunsIfOneAsLong)
    err = int(cudaMemsetAsync(f.work_counter, 0, sizeof(uint64_t), cs));
  if (err == 0) err = kernels::launch_chunk_factors(f, stream);
  if (err == 0) {
    err = slice == 32   ? kernels::launch_state_pass_v32(s, stream)
          : slice == 64 ? kernels::launch_state_pass_v64(s, stream)
                        : kernels::launch_state_pass_v128(s, stream);
  }
  return err;
}

}  // namespace

Status validate_values(const ForwardArgs& a, Stream stream) {
  Status st = check_forward(a);
  if (!st.ok()) return st;
  const ProblemShape sh = shape_of(a);
  const WorkspaceLayout ws = workspace_layout(sh.T, sh.N, sh.Hq);
  const cudaStream_t cs = reinterpret_cast<cudaStream_t>(stream);
  int prev_device = -1;
  cudaGetDevice(&prev_device);
  if (prev_device != a.q.device) cudaSetDevice(a.q.device);

  kernels::ValidateParams v;
  v.seq = sequences_of(a, sh);
  v.key_elems = sh.T * sh.Hq * kHeadDimK;
  v.value_elems = sh.T * sh.Hv * kHeadDimV;
  v.g = static_cast<const float*>(a.g.data);
  v.b = static_cast<const uint16_t*>(a.b.data);
  v.w = static_cast<const uint16_t*>(a.w.data);
  v.initial_index = static_cast<const int*>(a.initial_state_indices.data);
  v.final_index = static_cast<const int*>(a.final_state_indices.data);
  v.initial_slots = a.initial_state.sizes[0];
  v.final_slots = a.final_state.sizes[0];
  v.in_place = states_in_place(a);
  v.flags = at<int>(a.workspace, ws.flags);
  int flags = 0;
  int err = int(cudaMemsetAsync(v.flags, 0, sizeof(int), cs));
  if (err == 0) err = kernels::launch_validate_values(v, stream);
  if (err == 0) err = int(cudaMemcpyAsync(&flags, v.flags, sizeof(int), cudaMemcpyDeviceToHost, cs));
  if (err == 0) err = int(cudaStreamSynchronize(cs));
  if (prev_device != a.q.device && prev_device >= 0) cudaSetDevice(prev_device);
  if (err != 0) {
    (void)cudaGetLastError();
    return cuda_failure("gdn2 validate_values", err);
  }

  static const struct { int bit; const char* message; } kRules[] = {
      {kernels::kCuFirstNotZero, "cu_seqlens: the first offset must be 0"},
      {kernels::kCuNotIncreasing, "cu_seqlens: offsets must increase strictly (every sequence has at least one token)"},
      {kernels::kCuLastNotT, "cu_seqlens: the last offset must equal T (the number of tokens in q)"},
      {kernels::kGNotFinite, "g: every log decay must be finite (found NaN or Inf)"},
      {kernels::kGPositive, "g: every log decay must be <= 0 (found a positive value)"},
      {kernels::kBNotFinite, "b: every erase gate must be finite (found NaN or Inf)"},
      {kernels::kWNotFinite, "w: every write gate must be finite (found NaN or Inf)"},
      {kernels::kInitialIndexPastPool, "initial_state_indices: every index must be below initial_state's number of slots (its first size)"},
      {kernels::kFinalIndexPastPool, "final_state_indices: every index must be below final_state's number of slots (its first size)"},
      {kernels::kFinalSlotRepeated, "final_state_indices: two sequences write the same slot (each non-negative index must appear once)"},
      {kernels::kSlotWrittenAndReadByAnother, "final_state_indices: a sequence writes the slot that another sequence starts from (in place, each slot may be read only by the sequence that writes it)"},
  };
  for (const auto& rule : kRules) {
    if (flags & rule.bit) {
      Status s;
      s.code = StatusCode::kInvalidValue;
      std::snprintf(s.message, sizeof(s.message), "%s", rule.message);
      return s;
    }
  }
  return Status{};
}

}  // namespace gdn2
