// Warpgroup tensor-core products (wgmma, sm_90a) on TF32 operands: B in shared memory, A in shared
// memory (state_pass_ss.cuh) or in registers (state_pass_rs.cuh), operands in shared memory stored
// K-major in the canonical layout without swizzle (kernel_params.h, kmajor_offset), which
// kmajor_desc describes, or with the 128-byte swizzle (sw128_desc; the fused path's [Kb; Qg]).
//
// The accumulator of m64nN (f32) as each thread holds it, for warp w of the warpgroup and lane
// (g, t) = (lane / 4, lane % 4): acc[4 j + 2 h + e] is element (16 w + g + 8 h, 8 j + 2 t + e).
// The A fragment of one k-step of 8: a[0..3] = (16 w + g, t), (+ 8, t), (g, t + 4), (+ 8, t + 4).
#pragma once

#include <cstdint>

#include "kernels/device_common.cuh"

namespace gdn2::kernels {

constexpr int kWarpgroup = 128;  // threads: the four warps that issue one wgmma together

// This thread's warpgroup, broadcast from lane 0 so that the compiler knows it is the same across
// the warp: branches on it and the wgmma descriptors derived from it then live in uniform
// registers (no R2UR before each wgmma), and setmaxnreg runs in whole warpgroups.
__device__ __forceinline__ int warpgroup_index() { return __shfl_sync(0xffffffffu, int(threadIdx.x) / kWarpgroup, 0); }

// Descriptor of the [N][8] tile of k-step `kstep` of a K-major [N][K] operand at `base`.
template <int K>
__device__ __forceinline__ uint64_t kmajor_desc(const float* base, int kstep) {
  const uint32_t addr = smem_u32(base) + uint32_t(kstep) * uint32_t(kmajor::kStepBytes);
  constexpr uint64_t kLbo = kmajor::kLboBytes >> 4, kSbo = kmajor::sbo_bytes(K) >> 4;
  return uint64_t((addr & 0x3FFFFu) >> 4) | (kLbo << 16) | (kSbo << 32);  // layout type 0: no swizzle
}

// The descriptor of k-step `kstep` from that of k-step 0 (kmajor_desc(base, 0)): only the start
// address field (bits 0-13, 16-byte units) moves, by kStepBytes / 16 per step, and it cannot carry
// out of its 14 bits (shared memory lies below 256 KB). One add to the low word per product
// instead of the whole encoding.
__device__ __forceinline__ uint64_t kmajor_desc_at_step(uint64_t desc0, int kstep) {
  const uint32_t lo = uint32_t(desc0) + uint32_t(kstep) * uint32_t(kmajor::kStepBytes >> 4);
  return (desc0 & 0xFFFFFFFF00000000ull) | lo;
}

// Descriptor of k-step `kstep` of a [kRows][K] operand at `base` in the swizzled K-major layout
// (kernel_params.h, sw128; `base` on a 1,024-byte boundary): layout type 1 (bits 62-63), SBO the
// next 8-row group, LBO unused (1), base offset 0.
template <int kRows>
__device__ __forceinline__ uint64_t sw128_desc(const float* base, int kstep) {
  const uint32_t addr = smem_u32(base) + uint32_t(sw128::step_bytes(kstep, kRows));
  constexpr uint64_t kSbo = sw128::kSboBytes >> 4;
  return uint64_t((addr & 0x3FFFFu) >> 4) | (uint64_t(1) << 16) | (kSbo << 32) | (uint64_t(1) << 62);
}
// The same from k-step 0's descriptor: only the start address moves (as kmajor_desc_at_step), by
// a constant wherever kstep is unrolled.
template <int kRows>
__device__ __forceinline__ uint64_t sw128_desc_at_step(uint64_t desc0, int kstep) {
  const uint32_t lo = uint32_t(desc0) + uint32_t(sw128::step_bytes(kstep, kRows) >> 4);
  return (desc0 & 0xFFFFFFFF00000000ull) | lo;
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

// d (m64 x n32) = kScaleA * A (64 x 8) * B (8 x 32) + (d if accumulate, else 0), both K-major in
// shared memory.
template <int kScaleA>
__device__ __forceinline__ void wgmma_tf32_ss(float (&d)[16], uint64_t a, uint64_t b, uint32_t accumulate) {
  static_assert(kScaleA == 1 || kScaleA == -1, "wgmma scales A by +1 or -1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, %19, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(a), "l"(b), "r"(accumulate), "n"(kScaleA));
}

// acc (+)= kScaleA * A * B over k-steps 0 .. kSteps - 1: A [64][KA] at `a`, B [32][KB] at `b` (both
// K-major), then waits for the products. kAccumulate false: acc's contents are not read (the
// first k-step adds zero instead). The caller has fenced its own shared-memory writes to A and B
// (fence_proxy_async) and synchronised with the other writers.
template <int kScaleA, int KA, int KB, int kSteps, bool kAccumulate = true>
__device__ __forceinline__ void wgmma_product_ss(float (&acc)[16], const float* a, const float* b) {
  fence_operands(acc);
  wgmma_fence();
  const uint64_t a0 = kmajor_desc<KA>(a, 0), b0 = kmajor_desc<KB>(b, 0);
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
    wgmma_tf32_ss<kScaleA>(acc, kmajor_desc_at_step(a0, s), kmajor_desc_at_step(b0, s), kAccumulate || s > 0 ? 1u : 0u);
  wgmma_commit();
  wgmma_wait<0>();
  fence_operands(acc);
}

// d (m64 x kN) = kScaleA * A (64 x 8, registers) * B (8 x kN, K-major [kN][8] in shared memory)
// + (d if accumulate, else 0).
template <int kN, int kScaleA>
__device__ __forceinline__ void wgmma_tf32(float (&d)[kN / 2], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint64_t b,
                                           uint32_t accumulate) {
  static_assert(kN == 16 || kN == 32 || kN == 64 || kN == 128, "the products are 16, 32, 64 or 128 wide");
  static_assert(kScaleA == 1 || kScaleA == -1, "wgmma scales A by +1 or -1");
  if constexpr (kN == 16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, p, %14, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(accumulate), "n"(kScaleA));
  } else if constexpr (kN == 32) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, %22, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(accumulate), "n"(kScaleA));
  } else if constexpr (kN == 64) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, %38, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(accumulate), "n"(kScaleA));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, %70, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(accumulate), "n"(kScaleA));
  }
}

// d (+)= kScaleA * A * B over k-steps 0 .. kSteps - 1 (issue only: the caller fences, commits and
// waits): A's fragments in `a` (4 per k-step), B a K-major [kN][K] operand at `b`. kAccumulate
// false: d's contents are not read (the first k-step adds zero instead).
// The same with B's descriptor of k-step s from b_desc(s) (for another layout of B).
template <int kN, int kScaleA, int kSteps, bool kAccumulate = true, class BDesc>
__device__ __forceinline__ void wgmma_issue_desc(float (&d)[kN / 2], const uint32_t (&a)[4 * kSteps], BDesc b_desc) {
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
    wgmma_tf32<kN, kScaleA>(d, a[4 * s], a[4 * s + 1], a[4 * s + 2], a[4 * s + 3], b_desc(s),
                            kAccumulate || s > 0 ? 1u : 0u);
}
template <int kN, int kScaleA, int K, int kSteps, bool kAccumulate = true>
__device__ __forceinline__ void wgmma_issue(float (&d)[kN / 2], const uint32_t (&a)[4 * kSteps], const float* b) {
  const uint64_t b0 = kmajor_desc<K>(b, 0);
  wgmma_issue_desc<kN, kScaleA, kSteps, kAccumulate>(d, a, [&](int s) { return kmajor_desc_at_step(b0, s); });
}

// An m64 x (8 kSteps) accumulator as the A fragments of a product whose reduction index is the
// accumulator's column, rounded to TF32: its B operand stores that index permuted (kernel_params.h,
// k_position).
template <int kSteps>
__device__ __forceinline__ void acc_to_a(const float (&acc)[4 * kSteps], uint32_t (&a)[4 * kSteps]) {
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
#pragma unroll
    for (int r = 0; r < 4; ++r) a[4 * s + r] = to_tf32(acc[a_from_acc(s, r)]);
}

}  // namespace gdn2::kernels
