// Warpgroup tensor-core products (wgmma, sm_90a) on TF32 operands in shared memory.
//
// Every operand is stored K-major in the canonical layout without swizzle (kernel_params.h,
// kmajor_offset), which the descriptors below describe.
//
// The accumulator of m64nN (f32) as each thread holds it, for warp w of the warpgroup and lane
// (g, t) = (lane / 4, lane % 4): acc[4 j + 2 h + e] is element (16 w + g + 8 h, 8 j + 2 t + e).
#pragma once

#include <cstdint>

#include "kernels/device_common.cuh"

namespace gdn2::kernels {

// Descriptor of the [64 or N][8] tile of k-step `kstep` of a K-major [rows][K] operand at `base`.
template <int K>
__device__ __forceinline__ uint64_t kmajor_desc(const float* base, int kstep) {
  const uint32_t addr = smem_u32(base) + uint32_t(kstep) * uint32_t(kmajor::kStepBytes);
  constexpr uint64_t kLbo = kmajor::kLboBytes >> 4, kSbo = kmajor::sbo_bytes(K) >> 4;
  return uint64_t((addr & 0x3FFFFu) >> 4) | (kLbo << 16) | (kSbo << 32);  // layout type 0: no swizzle
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }

// Keeps the compiler from moving reads or writes of the accumulators across the asynchronous
// region (between the issue of the products and the wait for them).
template <int kN>
__device__ __forceinline__ void fence_operands(float (&acc)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}

// acc (m64 x kN) += kScaleA * A (64 x 8) * B (8 x kN), A and B K-major in shared memory.
template <int kN, int kScaleA>
__device__ __forceinline__ void wgmma_tf32(float (&d)[kN / 2], uint64_t a, uint64_t b) {
  static_assert(kN == 32 || kN == 64, "phase 2's slices are 32 or 64 value channels");
  static_assert(kScaleA == 1 || kScaleA == -1, "wgmma scales A by +1 or -1");
  if constexpr (kN == 32) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, %19, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(a), "l"(b), "r"(1), "n"(kScaleA));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, %35, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(a), "l"(b), "r"(1), "n"(kScaleA));
  }
}

// acc += kScaleA * A * B over k-steps 0 .. kSteps - 1: A [64][KA] at `a`, B [kN][KB] at `b` (both
// K-major), then waits for the products. The caller has fenced its own shared-memory writes to A
// and B (fence_proxy_async) and synchronised with the other writers.
template <int kN, int kScaleA, int KA, int KB, int kSteps>
__device__ __forceinline__ void wgmma_product(float (&acc)[kN / 2], const float* a, const float* b) {
  fence_operands(acc);
  wgmma_fence();
#pragma unroll
  for (int s = 0; s < kSteps; ++s) wgmma_tf32<kN, kScaleA>(acc, kmajor_desc<KA>(a, s), kmajor_desc<KB>(b, s));
  wgmma_commit();
  wgmma_wait_all();
  fence_operands(acc);
}

}  // namespace gdn2::kernels
