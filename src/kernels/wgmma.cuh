// Warpgroup tensor-core products (wgmma, sm_90a): on TF32 operands with A and B in shared memory
// (state_pass_ss.cuh), and on fp16 operands with A in registers and B in shared memory
// (state_pass_rs.cuh). Operands in shared memory are stored K-major in the canonical layout without
// swizzle (kernel_params.h, kmajor_offset and kmajor16_offset), which kmajor_desc and kmajor16_desc
// describe.
//
// The accumulator of m64nN (f32) as each thread holds it, for warp w of the warpgroup and lane
// (g, t) = (lane / 4, lane % 4): acc[4 j + 2 h + e] is element (16 w + g + 8 h, 8 j + 2 t + e).
// The TF32 A fragment of one k-step of 8: a[0..3] = (16 w + g, t), (+ 8, t), (g, t + 4), (+ 8, t + 4).
// The fp16 A fragment of one k-step of 16: a[0..3] = (16 w + g, 2 t .. 2 t + 1), (+ 8, same),
// (g, 2 t + 8 .. 2 t + 9), (+ 8, same), two values per register, the lower column in the low half.
#pragma once

#include <cstdint>

#include "kernels/device_common.cuh"

namespace gdn2::kernels {

// Descriptor of the [N][8] tile of k-step `kstep` of a K-major [N][K] operand at `base`.
template <int K>
__device__ __forceinline__ uint64_t kmajor_desc(const float* base, int kstep) {
  const uint32_t addr = smem_u32(base) + uint32_t(kstep) * uint32_t(kmajor::kStepBytes);
  constexpr uint64_t kLbo = kmajor::kLboBytes >> 4, kSbo = kmajor::sbo_bytes(K) >> 4;
  return uint64_t((addr & 0x3FFFFu) >> 4) | (kLbo << 16) | (kSbo << 32);  // layout type 0: no swizzle
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most kPending committed groups of this warpgroup's products are still running.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory"); }

// Keeps the compiler from moving reads or writes of registers that asynchronous products use
// (accumulators, and A fragments, which must stay unchanged until the wait) across the fences.
template <int kN>
__device__ __forceinline__ void fence_operands(float (&x)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(x[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_operands(uint32_t (&x)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(x[i])::"memory");
}

// d (m64 x n32) += kScaleA * A (64 x 8) * B (8 x 32), both K-major in shared memory.
template <int kScaleA>
__device__ __forceinline__ void wgmma_tf32_ss(float (&d)[16], uint64_t a, uint64_t b) {
  static_assert(kScaleA == 1 || kScaleA == -1, "wgmma scales A by +1 or -1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, %19, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(a), "l"(b), "r"(1), "n"(kScaleA));
}

// acc += kScaleA * A * B over k-steps 0 .. kSteps - 1: A [64][KA] at `a`, B [32][KB] at `b` (both
// K-major), then waits for the products. The caller has fenced its own shared-memory writes to A
// and B (fence_proxy_async) and synchronised with the other writers.
template <int kScaleA, int KA, int KB, int kSteps>
__device__ __forceinline__ void wgmma_product_ss(float (&acc)[16], const float* a, const float* b) {
  fence_operands(acc);
  wgmma_fence();
#pragma unroll
  for (int s = 0; s < kSteps; ++s) wgmma_tf32_ss<kScaleA>(acc, kmajor_desc<KA>(a, s), kmajor_desc<KB>(b, s));
  wgmma_commit();
  wgmma_wait<0>();
  fence_operands(acc);
}

// Descriptor of the [N][16] tile of k-step `kstep` of a 16-bit K-major [N][K] operand at `base`.
template <int K>
__device__ __forceinline__ uint64_t kmajor16_desc(const void* base, int kstep) {
  const uint32_t addr = smem_u32(base) + uint32_t(kstep) * uint32_t(kmajor::kStepBytes);
  constexpr uint64_t kLbo = kmajor::kLboBytes >> 4, kSbo = kmajor::sbo_bytes(K / 2) >> 4;
  return uint64_t((addr & 0x3FFFFu) >> 4) | (kLbo << 16) | (kSbo << 32);  // layout type 0: no swizzle
}

// d (m64 x n64) += kScaleA * A (64 x 16, fp16 in registers) * B (16 x 64, fp16, K-major [64][16] in
// shared memory), fp32 accumulation.
template <int kScaleA>
__device__ __forceinline__ void wgmma_f16(float (&d)[32], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint64_t b) {
  static_assert(kScaleA == 1 || kScaleA == -1, "wgmma scales A by +1 or -1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, %38, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(1), "n"(kScaleA));
}

// d += A * B over k-steps 0 .. kSteps - 1 (issue only: the caller fences, commits and waits): A's
// fragments in `a` (4 per k-step), B a 16-bit K-major [64][K] operand at `b`.
template <int K, int kSteps>
__device__ __forceinline__ void wgmma_issue16(float (&d)[32], const uint32_t (&a)[4 * kSteps], const void* b) {
#pragma unroll
  for (int s = 0; s < kSteps; ++s) wgmma_f16<1>(d, a[4 * s], a[4 * s + 1], a[4 * s + 2], a[4 * s + 3], kmajor16_desc<K>(b, s));
}

// An m64 x (16 kSteps) accumulator as the fp16 A fragments of a product whose reduction index is
// the accumulator's column, with one power-of-two scale per row (fp16_scale: the row's largest
// magnitude, over the four threads that hold the row, into [2^14, 2^15)): A fragment register r is
// accumulator elements acc16_of_a(r, 0 and 1) (kernel_params.h), of row g + 8 (r % 2). up[h] is
// the scale of row g + 8 h, which the product's result takes back on that row.
template <int kSteps>
__device__ __forceinline__ void acc_to_a16(const float (&acc)[8 * kSteps], uint32_t (&a)[4 * kSteps], float (&up)[2]) {
  // Each row's largest magnitude in four independent chains of maxima (short dependency chains),
  // then over the row's four threads.
  float m[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
#pragma unroll
  for (int i = 0; i < 8 * kSteps; ++i) {
    float& chain = m[(i >> 1) & 1][((i >> 2) & 1) * 2 + (i & 1)];  // row (i >> 1) & 1
    chain = fmaxf(chain, fabsf(acc[i]));
  }
  float biggest[2], down[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) biggest[h] = fmaxf(fmaxf(m[h][0], m[h][1]), fmaxf(m[h][2], m[h][3]));
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    biggest[h] = fmaxf(biggest[h], __shfl_xor_sync(0xffffffffu, biggest[h], 1));
    biggest[h] = fmaxf(biggest[h], __shfl_xor_sync(0xffffffffu, biggest[h], 2));
    const Fp16Scale sc = fp16_scale(biggest[h]);
    down[h] = sc.down;
    up[h] = sc.up;
  }
#pragma unroll
  for (int r = 0; r < 4 * kSteps; ++r)
    a[r] = pack_half2(acc[acc16_of_a(r, 0)] * down[r & 1], acc[acc16_of_a(r, 1)] * down[r & 1]);
}

}  // namespace gdn2::kernels
