// Internal device helpers shared by the kernels: sequence bounds, bf16 conversion, TF32 tensor-core
// tiles (mma.sync m16n8k8) and asynchronous global->shared copies.
#pragma once

#include <atomic>
#include <cstdint>
#include <cuda_bf16.h>

#include "kernels/kernel_params.h"

namespace gdn2::kernels {

constexpr int kK = kHeadDimK;
constexpr int kV = kHeadDimV;
constexpr int kC = kChunk;          // tokens per chunk
constexpr int kBlock = 16;          // rows per block of the off-diagonal split
constexpr float kLog2e = 1.4426950408889634f;

// Offset i of cu_seqlens as stored.
__device__ __forceinline__ int64_t cu_at(const Sequences& seq, int64_t i) {
  return seq.cu_int64 ? static_cast<const int64_t*>(seq.cu_seqlens)[i]
                      : static_cast<const int32_t*>(seq.cu_seqlens)[i];
}

// [bos, eos) of sequence s, clamped into [0, T]: out-of-contract cu_seqlens can only shorten or
// empty a sequence, never send an access out of bounds.
struct SeqBounds {
  int64_t bos, eos;
};
__device__ __forceinline__ SeqBounds seq_bounds(const Sequences& seq, int s) {
  int64_t a = cu_at(seq, s), b = cu_at(seq, s + 1);
  a = min(max(a, int64_t(0)), seq.T);
  b = min(max(b, a), seq.T);
  return {a, b};
}

__device__ __forceinline__ float bf16_to_float(uint16_t x) {
  return __uint_as_float(uint32_t(x) << 16);
}
__device__ __forceinline__ uint16_t float_to_bf16(float x) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(x));
}

// Per-token log decay in base 2; the decay factor is d = exp2(decay_log2(g)) in [0, 1]
// (docs/algorithm.md): out-of-contract g > 0 acts as 0 and NaN as -inf (fmaxf drops a NaN
// operand), so d is never above 1 or NaN.
__device__ __forceinline__ float decay_log2(float g) { return fminf(fmaxf(g, -INFINITY), 0.f) * kLog2e; }

__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// acc[16 x 8] += A[16 x 8*KSTEPS] * B[8*KSTEPS x 8] for one warp, operands in shared memory (fp32,
// rounded to TF32). A(r, k) = a[r * a_rs + k * a_cs], B(k, n) = b[k * b_ks + n * b_ns].
// Fragment layout (PTX ISA, mma.m16n8k8 .tf32): g = lane / 4, t = lane % 4;
//   a: (g, t) (g+8, t) (g, t+4) (g+8, t+4); b: (t, g) (t+4, g);
//   acc: (g, 2t) (g, 2t+1) (g+8, 2t) (g+8, 2t+1).
__device__ __forceinline__ void mma_tf32_k8(float (&acc)[4], const float* a, int a_rs, int a_cs,
                                            const float* b, int b_ks, int b_ns, int lane) {
  const int g = lane >> 2, t = lane & 3;
  uint32_t af[4], bf[2];
  af[0] = to_tf32(a[g * a_rs + t * a_cs]);
  af[1] = to_tf32(a[(g + 8) * a_rs + t * a_cs]);
  af[2] = to_tf32(a[g * a_rs + (t + 4) * a_cs]);
  af[3] = to_tf32(a[(g + 8) * a_rs + (t + 4) * a_cs]);
  bf[0] = to_tf32(b[t * b_ks + g * b_ns]);
  bf[1] = to_tf32(b[(t + 4) * b_ks + g * b_ns]);
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(af[0]), "r"(af[1]), "r"(af[2]), "r"(af[3]), "r"(bf[0]), "r"(bf[1]));
}

// The same over `ksteps` steps of 8 along the reduction dimension.
__device__ __forceinline__ void mma_tf32(float (&acc)[4], const float* a, int a_rs, int a_cs,
                                         const float* b, int b_ks, int b_ns, int ksteps, int lane) {
#pragma unroll 4
  for (int s = 0; s < ksteps; ++s)
    mma_tf32_k8(acc, a + 8 * s * a_cs, a_rs, a_cs, b + 8 * s * b_ks, b_ks, b_ns, lane);
}

// ---------------------------------------------------------------------------------------------
// Operand tiles for LDS.128 fragment loads. A tile is [rows][ld] fp32 holding values already
// rounded to TF32, k contiguous, with two changes to the plain layout:
//  * inside every group of 16 k, element k sits at perm16(k) = 4 (k % 4) + k / 4 (a 4x4
//    transpose, its own inverse): the four k a lane needs for two mma k-steps -- t, t + 4, t + 8,
//    t + 12 -- become one 16-byte vector;
//  * 16-byte chunks of odd rows are XOR-swizzled by 4 (chunk ^ 4), so the 8 lanes of a quarter
//    warp (rows g, g + 1; t = 0..3) hit 8 distinct 4-bank groups: no bank conflicts with ld = 0 mod 32.
__device__ __forceinline__ int perm16(int k) { return (k & ~15) | ((k & 3) << 2) | ((k >> 2) & 3); }
__device__ __forceinline__ int swizzle_chunk(int row, int chunk) { return chunk ^ ((row & 1) << 2); }
// Element offset of (row, logical k) in such a tile.
__device__ __forceinline__ int operand_offset(int row, int k, int ld) {
  const int p = perm16(k);
  return row * ld + (swizzle_chunk(row, p >> 2) << 2) + (p & 3);
}
__device__ __forceinline__ float round_tf32(float x) { return __uint_as_float(to_tf32(x)); }

__device__ __forceinline__ void mma_tf32_raw(float (&acc)[4], float a0, float a1, float a2, float a3, float b0,
                                             float b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(__float_as_uint(a0)), "r"(__float_as_uint(a1)), "r"(__float_as_uint(a2)), "r"(__float_as_uint(a3)),
        "r"(__float_as_uint(b0)), "r"(__float_as_uint(b1)));
}

// acc[j] += A (16 x 16 kPairs) * B_j for kTiles n8 tiles, both operands in the layout above:
// A rows 0..15 of `a` (its first row even), B_j = rows 8 j .. 8 j + 7 of `b` holding B^T
// (n-major, k contiguous). Per pair of k-steps: two LDS.128 for A, one per tile for B.
template <int kTiles, int kPairs>
__device__ __forceinline__ void mma_tf32_tiles_vec(float (&acc)[kTiles][4], const float* a, int lda,
                                                   const float* b, int ldb, int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll 2
  for (int u = 0; u < kPairs; ++u) {
    const float4 lo = *reinterpret_cast<const float4*>(a + g * lda + (swizzle_chunk(g, 4 * u + t) << 2));
    const float4 hi = *reinterpret_cast<const float4*>(a + (g + 8) * lda + (swizzle_chunk(g, 4 * u + t) << 2));
#pragma unroll
    for (int j = 0; j < kTiles; ++j) {
      const float4 bv = *reinterpret_cast<const float4*>(b + (8 * j + g) * ldb + (swizzle_chunk(g, 4 * u + t) << 2));
      mma_tf32_raw(acc[j], lo.x, hi.x, lo.y, hi.y, bv.x, bv.y);
      mma_tf32_raw(acc[j], lo.z, hi.z, lo.w, hi.w, bv.z, bv.w);
    }
  }
}

// The same for a lower-triangular A whose row block `mt` is zero past column 16 mt + 15.
template <int kTiles>
__device__ __forceinline__ void mma_tf32_tiles_vec_lower(float (&acc)[kTiles][4], int mt, const float* a, int lda,
                                                         const float* b, int ldb, int lane) {
  switch (mt) {
    case 0: mma_tf32_tiles_vec<kTiles, 1>(acc, a, lda, b, ldb, lane); break;
    case 1: mma_tf32_tiles_vec<kTiles, 2>(acc, a, lda, b, ldb, lane); break;
    case 2: mma_tf32_tiles_vec<kTiles, 3>(acc, a, lda, b, ldb, lane); break;
    default: mma_tf32_tiles_vec<kTiles, 4>(acc, a, lda, b, ldb, lane); break;
  }
}

// acc[j] += Kend^T (rows = key channels 0..15 of `kend`, k = the chunk's 64 tokens) * B_j, B as in
// mma_tf32_tiles_vec. Kend stays token-major ([64][ldk], ldk = 8 mod 32, values pre-rounded to
// TF32), so its fragments are read as scalars: conflict-free, and no transpose pass is needed.
template <int kTiles>
__device__ __forceinline__ void mma_tf32_tiles_kend(float (&acc)[kTiles][4], const float* kend, int ldk,
                                                    const float* b, int ldb, int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int u = 0; u < kChunk / 16; ++u) {
    float a[2][4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float* rows = kend + (16 * u + 8 * h + t) * ldk;
      a[h][0] = rows[g];
      a[h][1] = rows[g + 8];
      a[h][2] = rows[4 * ldk + g];
      a[h][3] = rows[4 * ldk + g + 8];
    }
#pragma unroll
    for (int j = 0; j < kTiles; ++j) {
      const float4 bv = *reinterpret_cast<const float4*>(b + (8 * j + g) * ldb + (swizzle_chunk(g, 4 * u + t) << 2));
      mma_tf32_raw(acc[j], a[0][0], a[0][1], a[0][2], a[0][3], bv.x, bv.y);
      mma_tf32_raw(acc[j], a[1][0], a[1][1], a[1][2], a[1][3], bv.z, bv.w);
    }
  }
}

// 16-byte global->shared copy that bypasses registers; src_bytes = 0 fills the 16 bytes with zeros.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, int src_bytes) {
  const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
// Raises a kernel's dynamic shared-memory limit once per device (the attribute is per device);
// `done` is that kernel's own record of the devices already set.
template <typename Kernel>
int allow_dynamic_smem(Kernel kernel, int bytes, std::atomic<uint64_t>& done) {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return int(err);
  const uint64_t bit = device < 64 ? (uint64_t(1) << device) : 0;
  if (bit && (done.load(std::memory_order_relaxed) & bit)) return 0;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess && bit) done.fetch_or(bit, std::memory_order_relaxed);
  return int(err);
}

}  // namespace gdn2::kernels
