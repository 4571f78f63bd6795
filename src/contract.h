// Internal: limits, problem shape and workspace layout shared by the contract checks and the
// host launcher. The public API is include/gdn2/gdn2.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gdn2/gdn2.h"

namespace gdn2 {

inline constexpr int64_t kMaxTokens = 2147483647;  // T fits in int32 token indices
inline constexpr int kMaxHeads = 65535;            // heads ride on gridDim.y
inline constexpr int kChunkRows = kChunk;          // rows of the per-chunk T and M matrices

struct ProblemShape {
  int64_t T = 0, N = 0, Hq = 0, Hv = 0;
};
ProblemShape shape_of(const ForwardArgs& args);  // only after check_forward passed

// The workspace holds the key-side chunk factors of docs/algorithm.md, fp32 values rounded to TF32,
// Qg, Kb, T and M with their reduction index permuted for phase 2 (src/kernels/device_common.cuh):
//   qg, kb, kend : [Hq, T, K]      tinv, mqk : [Hq, T, 64]      gamma : [Hq, slots, K]
//   flags        : a few int32 words for validate_values
// slots = floor(T / 64) + N + 1 (see "Sequences, chunks and the workspace").
struct WorkspaceLayout {
  int64_t slots = 0;
  size_t qg = 0, kb = 0, kend = 0, tinv = 0, mqk = 0, gamma = 0, flags = 0;  // byte offsets
  size_t total_bytes = 0;
};

inline WorkspaceLayout workspace_layout(int64_t T, int64_t N, int64_t Hq) {
  auto align = [](size_t x) { return (x + 255) & ~size_t(255); };
  WorkspaceLayout w;
  w.slots = T / kChunk + N + 1;
  const size_t rows = size_t(Hq) * size_t(T);
  size_t off = 0;
  w.qg = off;    off = align(off + rows * kHeadDimK * sizeof(float));
  w.kb = off;    off = align(off + rows * kHeadDimK * sizeof(float));
  w.kend = off;  off = align(off + rows * kHeadDimK * sizeof(float));
  w.tinv = off;  off = align(off + rows * kChunkRows * sizeof(float));
  w.mqk = off;   off = align(off + rows * kChunkRows * sizeof(float));
  w.gamma = off; off = align(off + size_t(Hq) * size_t(w.slots) * kHeadDimK * sizeof(float));
  w.flags = off; off = align(off + 64);
  w.total_bytes = off;
  return w;
}

// kOk when `device` is an sm_90 GPU (cached per device; no synchronisation).
Status check_device(int device);

}  // namespace gdn2
