// validate=True: the value rules of the contract that metadata cannot show (cu_seqlens offsets,
// g finite and <= 0, b and w finite, state indices within their pools). Sets ValueFlag bits; the host reads them back.
#include "kernels/device_common.cuh"

namespace gdn2::kernels {
namespace {

__device__ __forceinline__ bool bf16_finite(uint16_t x) { return (x & 0x7f80u) != 0x7f80u; }

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
  if (flags) atomicOr(p.flags, flags);
}

}  // namespace

int launch_validate_values(const ValidateParams& p, Stream stream) {
  return launch_ex(validate_values_kernel, dim3(264), 256, 0, stream, false, 1, p);
}

}  // namespace gdn2::kernels
