// validate=True: the value rules of the contract that metadata cannot show (cu_seqlens offsets,
// g finite and <= 0, b and w finite, state indices within their pools, no final slot written twice
// or, in place, read by another sequence). Sets ValueFlag bits; the host reads them back.
#include "kernels/device_common.cuh"

namespace gdn2::kernels {
namespace {

__device__ __forceinline__ bool bf16_finite(uint16_t x) { return (x & 0x7f80u) != 0x7f80u; }

// The slot sequence n reads (initial) or writes (final), or -1 for none: its index where indices are
// given, else n itself; none where there is no such state or the index is negative.
__device__ __forceinline__ int64_t slot_of(const int* index, int64_t slots, int64_t n) {
  if (slots == 0) return -1;
  const int64_t s = index ? int64_t(index[n]) : n;
  return s < 0 ? -1 : s;
}

// The slot rules over pairs of sequences, by comparing every pair (N^2 / 2 loads, from L1: a warp's
// lanes take consecutive sequences and read the same other sequence together). Only where a
// conflict is possible: final indices given, or in place with initial indices.
__device__ int slot_conflicts(const ValidateParams& p, int64_t tid, int64_t stride) {
  int flags = 0;
  const int64_t N = p.seq.N;
  for (int64_t n = tid; n < N; n += stride) {
    const int64_t written = slot_of(p.final_index, p.final_slots, n);
    if (written < 0 || written >= p.final_slots) continue;  // none, or past the pool (flagged apart)
    for (int64_t m = 0; m < N; ++m) {
      if (m == n) continue;
      if (m > n && p.final_index && slot_of(p.final_index, p.final_slots, m) == written) flags |= kFinalSlotRepeated;
      if (p.in_place && slot_of(p.initial_index, p.initial_slots, m) == written) flags |= kSlotWrittenAndReadByAnother;
    }
  }
  return flags;
}

__global__ void validate_values_kernel(const ValidateParams p) {
  int flags = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i = tid; i <= p.seq.N; i += stride) {
    const int64_t x = p.seq.cu_int64 ? static_cast<const int64_t*>(p.seq.cu_seqlens)[i]
                                     : static_cast<const int32_t*>(p.seq.cu_seqlens)[i];
    if (i == 0 && x != 0) flags |= kCuFirstNotZero;
    if (i == p.seq.N && x != p.seq.T) flags |= kCuLastNotT;
    if (i > 0) {
      const int64_t prev = p.seq.cu_int64 ? static_cast<const int64_t*>(p.seq.cu_seqlens)[i - 1]
                                          : static_cast<const int32_t*>(p.seq.cu_seqlens)[i - 1];
      if (x <= prev) flags |= kCuNotIncreasing;
    }
  }
  for (int64_t i = tid; i < p.key_elems; i += stride) {
    const float g = p.g[i];
    if (!isfinite(g)) flags |= kGNotFinite;
    else if (g > 0.f) flags |= kGPositive;
    if (!bf16_finite(p.b[i])) flags |= kBNotFinite;
  }
  for (int64_t i = tid; i < p.value_elems; i += stride)
    if (!bf16_finite(p.w[i])) flags |= kWNotFinite;
  for (int64_t i = tid; i < p.seq.N; i += stride) {  // negative indices mean "no state": allowed
    if (p.initial_index && p.initial_index[i] >= p.initial_slots) flags |= kInitialIndexPastPool;
    if (p.final_index && p.final_index[i] >= p.final_slots) flags |= kFinalIndexPastPool;
  }
  if (p.final_index || (p.in_place && p.initial_index)) flags |= slot_conflicts(p, tid, stride);
  if (flags) atomicOr(p.flags, flags);
}

}  // namespace

int launch_validate_values(const ValidateParams& p, Stream stream) {
  return launch_ex(validate_values_kernel, dim3(264), 256, 0, stream, false, 1, p);
}

}  // namespace gdn2::kernels
