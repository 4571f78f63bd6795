// The kernels' TF32 rounding (gdn2::kernels::round_tf32, cvt.rn.tf32.f32) against the CPU mirror's
// (gdn2::reference::round_tf32), on every sign, exponent and low 14-bit pattern (the bits that
// decide the rounding and its carry) with four upper-mantissa patterns (zero, one, all ones, mixed):
// 2^9 x 2^14 x 4 = 33.5M values. A NaN must come back NaN; every other value bit for bit equal.
// Run by tests/python/test_tf32_rounding_gpu.py. usage: ./build/gdn2_tf32_rounding
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/device_common.cuh"
#include "reference/reference.h"

namespace {

constexpr uint32_t kPatterns = 512u * 16384u * 4u;

__host__ __device__ uint32_t pattern(uint32_t i) {
  const uint32_t sel = (i >> 14) & 3u;  // mantissa bits 14 .. 22: zero, one, all ones, mixed
  const uint32_t low = i & 0x3FFFu, upper = sel == 0 ? 0u : sel == 1 ? 1u : sel == 2 ? 0x1FFu : 0x155u;
  const uint32_t sign_exp = i >> 16;
  return (sign_exp << 23) | (upper << 14) | low;
}

__global__ void round_all(uint32_t* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kPatterns) out[i] = __float_as_uint(gdn2::kernels::round_tf32(__uint_as_float(pattern(i))));
}

bool is_nan(uint32_t b) { return (b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu) != 0; }

}  // namespace

int main() {
  uint32_t* d = nullptr;
  if (cudaMalloc(&d, kPatterns * sizeof(uint32_t)) != cudaSuccess) return std::puts("cudaMalloc failed"), 2;
  round_all<<<kPatterns / 256, 256>>>(d);
  std::vector<uint32_t> gpu(kPatterns);
  const cudaError_t err = cudaMemcpy(gpu.data(), d, kPatterns * sizeof(uint32_t), cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (err != cudaSuccess) return std::printf("CUDA error: %s\n", cudaGetErrorString(err)), 2;
  uint64_t mismatches = 0, nans = 0;
  for (uint32_t i = 0; i < kPatterns; ++i) {
    const uint32_t x = pattern(i);
    float xf, rf;
    std::memcpy(&xf, &x, 4);
    rf = gdn2::reference::round_tf32(xf);
    uint32_t ref;
    std::memcpy(&ref, &rf, 4);
    const bool ok = is_nan(x) ? (++nans, is_nan(gpu[i])) : gpu[i] == ref;
    if (!ok && mismatches++ < 4) std::printf("x = %08x: GPU %08x, CPU mirror %08x\n", x, gpu[i], ref);
  }
  std::printf("%u patterns (%llu NaN): %llu mismatches\n%s\n", kPatterns, (unsigned long long)nans,
              (unsigned long long)mismatches, mismatches == 0 ? "PASS" : "FAIL");
  return mismatches == 0 ? 0 : 1;
}
