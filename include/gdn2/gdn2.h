// gdn2: Gated DeltaNet-2 forward prefill for NVIDIA Hopper (sm_90a).
//
// Public C++ API. Plain structs and functions only: no CUDA, CuTe or torch headers are needed
// to include this file (the stream is the runtime's opaque cudaStream_t, declared below).
// The recurrence and the tensor contract are in docs/algorithm.md and README.md.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;  // same opaque type as cudaStream_t in cuda_runtime_api.h

namespace gdn2 {

using Stream = CUstream_st*;

// kFloat16 is never accepted; it is named so that a half-precision tensor, a common mistake for
// bf16, gets an error that says so (kOther: any other dtype).
enum class DType : int32_t { kBFloat16 = 0, kFloat32 = 1, kInt32 = 2, kInt64 = 3, kOther = 4, kFloat16 = 5 };

// A tensor as the caller sees it. `device` is the CUDA ordinal, or -1 for host memory.
// Sizes and strides are in elements, outermost first; rank <= 4.
struct TensorView {
  const void* data = nullptr;
  DType dtype = DType::kOther;
  int32_t device = -1;
  int32_t rank = 0;
  int64_t sizes[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 0};

  bool defined() const { return data != nullptr || rank > 0; }
};

// Builds a contiguous (row-major) view.
TensorView contiguous_view(const void* data, DType dtype, int32_t device, int32_t rank,
                           const int64_t* sizes);

// Limits of this build. K and V are fixed at 128 for now (the code is written for 64/256 later).
inline constexpr int kHeadDimK = 128;
inline constexpr int kHeadDimV = 128;
inline constexpr int kChunk = 64;  // tokens per chunk of the chunked algorithm
// The usual output scale, K^-0.5 (ForwardArgs::scale's default).
inline constexpr float kDefaultScale = 0.08838834764831845f;
static_assert(kHeadDimK == 128, "kDefaultScale is 128^-0.5");

// One forward call. Optional tensors are left default-constructed (undefined).
//   q, k, b : bf16 [T, Hq, K]        g : fp32 [T, Hq, K] (raw log decay, finite, <= 0)
//   v, w    : bf16 [T, Hv, V]        cu_seqlens : int32 or int64 [N + 1]
//   initial_state, final_state : fp32 or bf16 [N, Hv, V, K] (K contiguous)   output : bf16 [T, Hv, V]
//   or, with state indices, state pools: [P, Hv, V, K] whose first stride may exceed Hv V K
//   (a multiple of 4 elements), and int32 [N] indices (see ForwardArgs::initial_state_indices).
//   Each state's dtype is its own; the state is fp32 in the kernels, and a bf16 final state is
//   rounded once (to nearest even) when it is written.
//   (The state is "V-first": each head's state is S^T, V rows of K values. FLA's default layout,
//   [N, H, K, V], has the same shape when K = V and is NOT accepted silently transposed: pass
//   S.transpose(-1, -2).contiguous(), or FLA's state_v_first=True layout, which is this one.)
// Which algorithm forward runs (README.md, "Three algorithms"). kAuto picks from the sizes and the
// max_seqlen hint: kRecurrent or kFused where every sequence is short, else kChunked; without the
// hint, where the sizes leave two algorithms possible, the kernels pick on the device from the
// longest sequence in cu_seqlens (no host synchronisation; docs/design.md). All
// meet the contract's accuracy on every valid input; their results are not bitwise equal to each
// other.
enum class Algorithm : int32_t {
  kAuto = 0,
  kChunked = 1,    // phase 1 (key-side factors of 64-token chunks), then the state pass
  kRecurrent = 2,  // the recurrence token by token in one launch (no chunk factors in the workspace)
  kFused = 3,      // 16-token blocks, key side and value side in one launch (no chunk factors either)
};

struct ForwardArgs {
  TensorView q, k, v, g, b, w;
  TensorView cu_seqlens;
  TensorView initial_state;  // optional
  TensorView output;         // required (the caller allocates it)
  TensorView final_state;    // optional: written when defined
  // Optional state indices, int32 [N], for engines that keep states in a pool of slots (as vLLM,
  // SGLang and FlashInfer do). With initial_state_indices, initial_state is a pool [P, Hv, V, K] and
  // sequence n starts from slot initial_state_indices[n], or from zeros where that index is
  // negative. With final_state_indices, final_state is a pool [P', Hv, V, K] and sequence n's final
  // state goes to slot final_state_indices[n], or nowhere where it is negative. A pool's first
  // stride may exceed Hv V K (slots inside a larger page), a multiple of 4 elements. An index >= its
  // pool's P touches no state: the sequence's output rows become NaN (validate_values reports it).
  // initial_state and final_state may be the same tensor (an in-place update: each sequence's slot
  // is read before it is written), with or without indices, provided no sequence writes a slot that
  // another sequence reads; two sequences writing one slot leave it undefined (their CTAs' stores
  // interleave: a mix of their states).
  // validate_values reports both (it compares every pair of sequences' slots).
  TensorView initial_state_indices;
  TensorView final_state_indices;
  float scale = kDefaultScale;  // o_t = scale * S^T q_t; finite
  // Device memory of at least forward_workspace_bytes(args) bytes (or of forward_workspace_bytes(T,
  // N, Hq), enough for any call of those sizes), 256-byte aligned, any contents. A workspace may be
  // reused by the next call on the same stream, but not by a call in flight on another stream.
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  Algorithm algorithm = Algorithm::kAuto;
  // Optional: the length of the longest sequence, if the caller knows it (0: unknown; then kAuto
  // lets the device choose where the sizes leave two algorithms possible). Only kAuto's choice
  // reads it: a wrong value never makes a result wrong.
  int64_t max_seqlen = 0;
};

enum class StatusCode : int32_t {
  kOk = 0,
  kInvalidArgument = 1,   // metadata: dtype, rank, shape, device, layout, overlap, scale
  kInvalidValue = 2,      // values, found only by validate_values (synchronous)
  kUnsupportedDevice = 3, // not an sm_90 GPU
  kCudaError = 4,         // a CUDA runtime call failed
};

struct Status {
  StatusCode code = StatusCode::kOk;
  char message[320] = {0};
  bool ok() const { return code == StatusCode::kOk; }
};

// Workspace enough for any call of T tokens, N sequences and Hq key heads, whatever its algorithm
// (bytes, a multiple of 256): what the chunked path needs, about Hq (T / 64 + N + 1) 128.5 KiB.
// Depends on sizes only, so it can be computed without reading cu_seqlens. 0 for sizes no call can
// have (T < 1, N < 1, N > T or 2^30, Hq < 1); SIZE_MAX where the size would not fit in size_t.
size_t forward_workspace_bytes(int64_t T, int64_t N, int64_t Hq);

// Workspace this call needs (bytes, a multiple of 256): as above where its plan may run the chunked
// path (kChunked, or kAuto picking it or leaving the choice to the device), else only a few flag
// words (1,280 bytes), which is what kRecurrent and kFused calls, and kAuto calls that the sizes and
// the max_seqlen hint settle on one of them, need. kAuto plans the chunked path only where that
// workspace is at most 4 times the call's token bytes (q, k, g, b, v, w, output) or at most 1 GiB
// (many short sequences would otherwise ask for a factor block each). Reads the shapes of q, v and cu_seqlens, the
// algorithm and max_seqlen (and the device's multiprocessor count), no tensor memory; 0 where
// those are not a valid call's (check_forward then says what is wrong).
size_t forward_workspace_bytes(const ForwardArgs& args);

// Checks every metadata rule of the contract; touches no device memory and launches nothing.
Status check_forward(const ForwardArgs& args);

// Checks the values that metadata cannot show (cu_seqlens starts at 0, increases strictly and ends
// at T; g finite and <= 0; b and w finite; state indices below their pool's size). Launches one small kernel on `stream` and waits for it:
// it synchronises. Requires check_forward to pass and the workspace to be given.
Status validate_values(const ForwardArgs& args, Stream stream);

// check_forward, then the launches on `stream`. No host synchronisation, no allocation:
// capturable in a CUDA graph. Deterministic: same inputs, bitwise same outputs.
Status forward(const ForwardArgs& args, Stream stream);

}  // namespace gdn2
