// Internal: limits, problem shape and workspace layout shared by the contract checks and the
// host launcher. The public API is include/gdn2/gdn2.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gdn2/gdn2.h"
#include "kernels/kernel_params.h"

namespace gdn2 {

inline constexpr int64_t kMaxTokens = 2147483647;  // T fits in int32 token indices
inline constexpr int kMaxHeads = 65535;            // heads ride on gridDim.y
// Sequences: the kernels' int32 loops over them (a stride of up to 512 threads past N) and
// bisections over them (lo + hi) stay in range. 2^30 one-token sequences are 2 TiB of inputs.
inline constexpr int64_t kMaxSequences = int64_t(1) << 30;

struct ProblemShape {
  int64_t T = 0, N = 0, Hq = 0, Hv = 0;
};
ProblemShape shape_of(const ForwardArgs& args);  // only after check_forward passed

// The workspace: first the int32 flag words that every path may use (validate_values' verdict,
// phase 1's work counter, which kAuto's choice on the device also zeroes, and phase 1's fault
// words), then what only the chunked path reads: the key-side chunk factors of
// docs/algorithm.md, one block of kernels::factor_block::kFloats fp32 values per (key head, chunk
// slot) -- src/kernels/kernel_params.h gives its layout --, and the ready words and the sequences'
// order that phase 1 writes for phase 2. slots = floor(T / 64) + N + 1 (see "Sequences, chunks and
// the workspace"). A call whose plan runs no chunked path needs only the flags (`flags_bytes`).
// Bytes 4-7: the fused path's persistent form's counter of claimed items (kernels::fused_persistent).
inline constexpr size_t kFusedClaimsOffset = 4, kWorkCounterOffset = 8, kFaultWordsOffset = 16;  // within the flags
struct WorkspaceLayout {
  int64_t slots = 0;
  size_t flags = 0, factors = 0, ready = 0, order = 0;  // byte offsets
  size_t flags_bytes = 0;  // the flags alone (what the recurrent and fused paths need)
  size_t total_bytes = 0;  // everything (what the chunked path needs)
};

inline WorkspaceLayout workspace_layout(int64_t T, int64_t N, int64_t Hq) {
  auto align = [](size_t x) { return (x + 255) & ~size_t(255); };
  WorkspaceLayout w;
  w.slots = T / kChunk + N + 1;
  size_t off = 0;
  // Bytes 0-3: validate_values' flags; 4-7: the fused persistent form's claims; 8-15: phase 1's
  // work counter; from 16: one fault word per phase-1 CTA.
  w.flags = off;   off = align(off + kFaultWordsOffset + sizeof(int) * kernels::kMaxPhase1Ctas);
  w.flags_bytes = off;
  // Sizes within the contract's limits whose factor blocks would not fit in size_t (far beyond any
  // memory): the rest saturates, so that no workspace is large enough for the chunked path.
  constexpr size_t kBlockBytes = kernels::factor_block::kFloats * sizeof(float);
  if (size_t(Hq) > SIZE_MAX / 4 / kBlockBytes / size_t(w.slots)) {
    w.factors = w.ready = w.order = w.total_bytes = SIZE_MAX;
    return w;
  }
  w.factors = off; off = align(off + size_t(Hq) * size_t(w.slots) * kBlockBytes);
  // One ready word per (key head, slot) (ChunkFactorsParams::ready).
  w.ready = off;   off = align(off + sizeof(int) * size_t(Hq) * size_t(w.slots));
  // The sequences longest first (ChunkFactorsParams::order).
  w.order = off;   off = align(off + sizeof(int) * size_t(N));
  w.total_bytes = off;
  return w;
}

// The algorithm forward runs: a.algorithm, or for kAuto the one with the smallest estimated GPU
// time on a device of `sms` multiprocessors, from the sizes and the max_seqlen hint alone (no read
// of cu_seqlens; src/contract.cpp gives the estimates).
Algorithm choose_algorithm(const ForwardArgs& a, const ProblemShape& sh, int64_t sms);

// What forward launches: one path (`shorter` == `longer`), or, for kAuto without the hint where the
// sizes leave two paths possible, both, each told to run only if the longest sequence, read on the
// device, is shorter than `length` (`shorter`) or not (`longer`) (kernels::DeviceChoice). `length`
// is where choose_algorithm's pick, given each possible longest length as the hint, changes.
struct LaunchPlan {
  Algorithm shorter = Algorithm::kChunked, longer = Algorithm::kChunked;
  int64_t length = 0;
  bool on_device() const { return shorter != longer; }
};
LaunchPlan plan_launch(const ForwardArgs& a, const ProblemShape& sh, int64_t sms);

// The workspace bytes a call with this plan needs: the whole layout where the plan launches the
// chunked path (as the longer or the shorter of two), else the flags alone.
size_t plan_workspace_bytes(const LaunchPlan& plan, const ProblemShape& sh);

// The multiprocessor count of a CUDA device, looked up once (132 where it cannot be queried, as on
// a machine without a GPU). kAuto's plan depends on it.
int multiprocessor_count(int device);

// check_forward, which also returns kAuto's plan (valid only when the status is kOk or
// kUnsupportedDevice), so that forward does not plan twice.
Status check_forward(const ForwardArgs& args, LaunchPlan* plan);

// Whether final_state is initial_state itself (the same view: an in-place update).
bool states_in_place(const ForwardArgs& args);

// kOk when `device` is an sm_90 GPU (cached per device; no synchronisation).
Status check_device(int device);

}  // namespace gdn2
