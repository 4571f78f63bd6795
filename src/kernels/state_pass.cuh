// Phase 2: the sequential pass over the chunks of one sequence (docs/algorithm.md, value side):
//   R = w*v - Kb S0;  U = T R;  O = scale (Qg S0 + M U);  S1 = gamma * S0 + Kend^T U.
// Value channels evolve independently, so one CTA owns a slice of kSliceV value channels of one
// (sequence, value head): the slices of a head run on different SMs with no communication.
// The fp32 state slice lives in registers in the tensor-core accumulator layout, with a copy in
// shared memory as the B operand of the next chunk's products.
//
// Included by one translation unit per slice width (state_pass_v32.cu, state_pass_v64.cu).
#pragma once

#include "kernels/device_common.cuh"

namespace gdn2::kernels::state_pass {

constexpr int kThreads = 512;       // 16 warps: enough independent tiles in flight per SM
constexpr int kLdKend = kK + 8;     // Kend stays token-major; read transposed, conflict-free

// Operands in the vector layout of device_common.cuh (perm16 + swizzle, TF32 values): the factors
// as phase 1 wrote them, the state and the products R, U stored transposed (n-major) as B^T.
template <int kSliceV>
struct Smem {
  float kb[kC * kK];          // A of R = w*v - Kb S
  float qg[kC * kK];          // A of Qg S
  float t[kC * kC];           // A of U = T R
  float m[kC * kC];           // A of M U
  float kend[kC * kLdKend];   // A^T of Kend^T U
  float st[kSliceV * kK];     // S^T: the state slice as the B operand (TF32 copy)
  float rt[kSliceV * kC];     // R^T
  float ut[kSliceV * kC];     // U^T
  float gamma[kK];
};

// One chunk of the sequence: its first token, length and gamma slot.
struct ChunkRef {
  int64_t t0;
  int len;
  int64_t slot;
};
__device__ __forceinline__ ChunkRef chunk_ref(const SeqBounds& sb, int s, int64_t c) {
  const int64_t t0 = sb.bos + c * kC;
  return {t0, int(sb.eos - t0 < kC ? sb.eos - t0 : int64_t(kC)), sb.bos / kC + s + c};
}

// Rows [0, 64) of a [rows][width] factor into shared memory with 16-byte asynchronous copies; rows
// past the chunk's end are zero-filled, so they add exact zeros. `swizzled`: the operand layout's
// chunk swizzle (the k permutation is already in global memory); otherwise a plain row stride ld.
__device__ __forceinline__ void copy_rows(float* dst, int ld, bool swizzled, const float* src, int width, int len) {
  const int chunks = width / 4;
  for (int idx = threadIdx.x; idx < kC * chunks; idx += kThreads) {
    const int r = idx / chunks, q = idx % chunks;
    const int dq = swizzled ? swizzle_chunk(r, q) : q;
    cp_async_16(dst + r * ld + 4 * dq, src + int64_t(r < len ? r : 0) * width + 4 * q, r < len ? 16 : 0);
  }
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most two groups of copies are still in flight. The four factor groups below are
// issued in the order they are used, each as soon as its buffer is free, and the kernel keeps
// exactly three in flight before each step: "the oldest group" is always the one the step needs.
__device__ __forceinline__ void wait_oldest_group() { asm volatile("cp.async.wait_group 2;\n" ::); }

// The four factor groups of a chunk, in order of use. An absent chunk commits an empty group, which
// keeps the count of groups in flight the same on every step.
enum class Factors { kKb, kT, kQgM, kKendGamma };
template <int kSliceV>
__device__ __forceinline__ void issue_factors(Factors which, const StatePassParams& p, int hk,
                                              ChunkRef ch, bool present, Smem<kSliceV>& sm) {
  if (present) {
    const int64_t row0 = int64_t(hk) * p.seq.T + ch.t0;
    switch (which) {
      case Factors::kKb: copy_rows(sm.kb, kK, true, p.kb + row0 * kK, kK, ch.len); break;
      case Factors::kT: copy_rows(sm.t, kC, true, p.tinv + row0 * kC, kC, ch.len); break;
      case Factors::kQgM:
        copy_rows(sm.qg, kK, true, p.qg + row0 * kK, kK, ch.len);
        copy_rows(sm.m, kC, true, p.mqk + row0 * kC, kC, ch.len);
        break;
      case Factors::kKendGamma:
        copy_rows(sm.kend, kLdKend, false, p.kend + row0 * kK, kK, ch.len);
        if (threadIdx.x < kK / 4)
          cp_async_16(sm.gamma + threadIdx.x * 4, p.gamma + (int64_t(hk) * p.slots + ch.slot) * kK + threadIdx.x * 4, 16);
        break;
    }
  }
  commit_copies();
}

// Accumulator fragment of an m16n8 tile at (row0, col0) of a [rows][n] product, stored transposed
// into an operand tile (n-major, k = row) as TF32.
__device__ __forceinline__ void store_tile_transposed(float* dst, int ld, int row0, int col0, const float (&acc)[4],
                                                      int lane) {
  const int g = lane >> 2, t = lane & 3;
  const int r = row0 + g, c = col0 + 2 * t;
  dst[operand_offset(c, r, ld)] = round_tf32(acc[0]);
  dst[operand_offset(c + 1, r, ld)] = round_tf32(acc[1]);
  dst[operand_offset(c, r + 8, ld)] = round_tf32(acc[2]);
  dst[operand_offset(c + 1, r + 8, ld)] = round_tf32(acc[3]);
}

// The fault path: this CTA's slice of output rows s, s + N, s + 2N, ... (together the CTAs of all
// sequences cover every row exactly once) and of final state s become NaN.
__device__ inline void fill_nan(const StatePassParams& p, int s, int h, int v0, int width, int64_t state_off) {
  const int pairs = width / 2;
  for (int64_t idx = threadIdx.x; idx < ((p.seq.T - s + p.seq.N - 1) / p.seq.N) * pairs; idx += kThreads) {
    const int64_t t = s + (idx / pairs) * p.seq.N;
    const int64_t off = (t * p.Hv + h) * kV + v0 + 2 * (idx % pairs);
    *reinterpret_cast<uint32_t*>(p.out + off) = 0x7fc07fc0u;  // two bf16 NaNs
  }
  if (p.final_state)
    for (int idx = threadIdx.x; idx < width * kK; idx += kThreads) p.final_state[state_off + idx] = __int_as_float(0x7fc00000);
}

template <int kSliceV>
__global__ void __launch_bounds__(kThreads, 1) state_pass_kernel(const StatePassParams p) {
  constexpr int kSlices = kV / kSliceV;
  constexpr int kTiles = kSliceV / 8;       // n8 tiles across the slice
  constexpr int kWarps = kThreads / 32;
  constexpr int kRowTiles = kTiles * (kC / 16) / kWarps;   // per warp in the [64][kSliceV] products
  constexpr int kStateTiles = kTiles * (kK / 16) / kWarps; // per warp in the [K][kSliceV] state
  static_assert(kRowTiles >= 1 && kStateTiles >= 1, "slice too narrow for the warp count");
  extern __shared__ float4 smem_raw[];
  Smem<kSliceV>& sm = *reinterpret_cast<Smem<kSliceV>*>(smem_raw);
  const int s = blockIdx.x / kSlices, slice = blockIdx.x % kSlices;
  const int h = blockIdx.y, hk = h / (p.Hv / p.Hq);
  const int v0 = slice * kSliceV;
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  const SeqBounds sb = seq_bounds(p.seq, s);
  const int64_t state_off = (int64_t(s) * p.Hv + h) * kV * kK + int64_t(v0) * kK;
  const int64_t nchunks = (sb.eos - sb.bos + kC - 1) / kC;

  if (*p.fault) {  // inconsistent cu_seqlens: NaN in every output row and state (documented)
    fill_nan(p, s, h, v0, kSliceV, state_off);
    return;
  }
  // Copy schedule, per chunk c (one barrier per step; "wait" = wait_oldest_group):
  //   wait Kb(c), sync, issue Kend(c), R;  wait T(c), sync, issue Kb(c+1), U;
  //   wait QgM(c), sync, issue T(c+1), O;  wait Kend(c), sync, issue QgM(c+1), S1.
  // Each barrier also publishes the previous step's products and frees the buffer refilled next.
  if (nchunks > 0) {
    const ChunkRef first = chunk_ref(sb, s, 0);
    issue_factors(Factors::kKb, p, hk, first, true, sm);
    issue_factors(Factors::kT, p, hk, first, true, sm);
    issue_factors(Factors::kQgM, p, hk, first, true, sm);
  }

  // This warp's part of the state in fp32 registers: key channels srow, srow + 8, value channels
  // 8 (sn0 + j) + 2 t (+1). Global layout [V][K]: element (n, c) at n * K + c.
  const int sm_t = warp / (kTiles / kStateTiles), sn0 = (warp % (kTiles / kStateTiles)) * kStateTiles;
  const int srow = 16 * sm_t + g;
  const float* h0 = p.initial_state ? p.initial_state + state_off : nullptr;
  float state[kStateTiles][4];
#pragma unroll
  for (int j = 0; j < kStateTiles; ++j) {
    const int col = 8 * (sn0 + j) + 2 * t;
    state[j][0] = h0 ? h0[col * kK + srow] : 0.f;
    state[j][1] = h0 ? h0[(col + 1) * kK + srow] : 0.f;
    state[j][2] = h0 ? h0[col * kK + srow + 8] : 0.f;
    state[j][3] = h0 ? h0[(col + 1) * kK + srow + 8] : 0.f;
    store_tile_transposed(sm.st, kK, 16 * sm_t, 8 * (sn0 + j), state[j], lane);
  }

  // This warp's tiles in the [64][kSliceV] products: rows 16 * mt, n8 tiles nt0 ..
  const int mt = warp / (kTiles / kRowTiles), nt0 = (warp % (kTiles / kRowTiles)) * kRowTiles;
  const float* st_tiles = sm.st + 8 * nt0 * kK;
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const ChunkRef next = chunk_ref(sb, s, c + 1);
    const bool has_next = c + 1 < nchunks;

    // w * v at this thread's accumulator positions (zero past the chunk's end).
    float wv[kRowTiles][4];
#pragma unroll
    for (int j = 0; j < kRowTiles; ++j)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = 16 * mt + g + 8 * half;
        float2 prod = make_float2(0.f, 0.f);
        if (row < ch.len) {
          const int64_t off = ((ch.t0 + row) * p.Hv + h) * kV + v0 + 8 * (nt0 + j) + 2 * t;
          const uint32_t vv = *reinterpret_cast<const uint32_t*>(p.v + off);
          const uint32_t ww = *reinterpret_cast<const uint32_t*>(p.w + off);
          prod.x = bf16_to_float(uint16_t(vv & 0xffffu)) * bf16_to_float(uint16_t(ww & 0xffffu));
          prod.y = bf16_to_float(uint16_t(vv >> 16)) * bf16_to_float(uint16_t(ww >> 16));
        }
        wv[j][2 * half] = prod.x;
        wv[j][2 * half + 1] = prod.y;
      }

    // R = w*v - Kb S
    wait_oldest_group();
    __syncthreads();  // Kb landed; the previous chunk's state copy is complete; Kend is free
    issue_factors(Factors::kKendGamma, p, hk, ch, true, sm);
    {
      float acc[kRowTiles][4] = {};
      mma_tf32_tiles_vec<kRowTiles, kK / 16>(acc, sm.kb + 16 * mt * kK, kK, st_tiles, kK, lane);
#pragma unroll
      for (int j = 0; j < kRowTiles; ++j) {
        const float r[4] = {wv[j][0] - acc[j][0], wv[j][1] - acc[j][1], wv[j][2] - acc[j][2], wv[j][3] - acc[j][3]};
        store_tile_transposed(sm.rt, kC, 16 * mt, 8 * (nt0 + j), r, lane);
      }
    }

    // U = T R (T is lower triangular)
    wait_oldest_group();
    __syncthreads();
    issue_factors(Factors::kKb, p, hk, next, has_next, sm);
    {
      float acc[kRowTiles][4] = {};
      mma_tf32_tiles_vec_lower<kRowTiles>(acc, mt, sm.t + 16 * mt * kC, kC, sm.rt + 8 * nt0 * kC, kC, lane);
#pragma unroll
      for (int j = 0; j < kRowTiles; ++j) store_tile_transposed(sm.ut, kC, 16 * mt, 8 * (nt0 + j), acc[j], lane);
    }

    // O = scale (Qg S + M U)
    wait_oldest_group();
    __syncthreads();
    issue_factors(Factors::kT, p, hk, next, has_next, sm);
    {
      float acc[kRowTiles][4] = {};
      mma_tf32_tiles_vec<kRowTiles, kK / 16>(acc, sm.qg + 16 * mt * kK, kK, st_tiles, kK, lane);
      mma_tf32_tiles_vec_lower<kRowTiles>(acc, mt, sm.m + 16 * mt * kC, kC, sm.ut + 8 * nt0 * kC, kC, lane);
#pragma unroll
      for (int j = 0; j < kRowTiles; ++j)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = 16 * mt + g + 8 * half;
          if (row < ch.len) {
            const int64_t off = ((ch.t0 + row) * p.Hv + h) * kV + v0 + 8 * (nt0 + j) + 2 * t;
            const uint32_t packed = uint32_t(float_to_bf16(p.scale * acc[j][2 * half])) |
                                    (uint32_t(float_to_bf16(p.scale * acc[j][2 * half + 1])) << 16);
            *reinterpret_cast<uint32_t*>(p.out + off) = packed;
          }
        }
    }

    // S1 = gamma * S + Kend^T U, this warp's part of the state
    wait_oldest_group();
    __syncthreads();  // also: every warp is done reading the state copy (O)
    issue_factors(Factors::kQgM, p, hk, next, has_next, sm);
    {
      const float gamma_lo = sm.gamma[srow], gamma_hi = sm.gamma[srow + 8];
      float acc[kStateTiles][4] = {};
      mma_tf32_tiles_kend<kStateTiles>(acc, sm.kend + 16 * sm_t, kLdKend, sm.ut + 8 * sn0 * kC, kC, lane);
#pragma unroll
      for (int j = 0; j < kStateTiles; ++j) {
        state[j][0] = gamma_lo * state[j][0] + acc[j][0];
        state[j][1] = gamma_lo * state[j][1] + acc[j][1];
        state[j][2] = gamma_hi * state[j][2] + acc[j][2];
        state[j][3] = gamma_hi * state[j][3] + acc[j][3];
      }
    }
#pragma unroll
    for (int j = 0; j < kStateTiles; ++j) store_tile_transposed(sm.st, kK, 16 * sm_t, 8 * (sn0 + j), state[j], lane);
  }
  if (p.final_state) {  // straight from the fp32 registers
    float* hn = p.final_state + state_off;
#pragma unroll
    for (int j = 0; j < kStateTiles; ++j) {
      const int col = 8 * (sn0 + j) + 2 * t;
      hn[col * kK + srow] = state[j][0];
      hn[(col + 1) * kK + srow] = state[j][1];
      hn[col * kK + srow + 8] = state[j][2];
      hn[(col + 1) * kK + srow + 8] = state[j][3];
    }
  }
}

}  // namespace gdn2::kernels::state_pass

namespace gdn2::kernels {

template <int kSliceV>
int launch_state_pass(const StatePassParams& p, Stream stream) {
  using state_pass::kThreads;
  const int smem = int(sizeof(state_pass::Smem<kSliceV>));
  static std::atomic<uint64_t> smem_set{0};
  const int err = allow_dynamic_smem(state_pass::state_pass_kernel<kSliceV>, smem, smem_set);
  if (err != 0) return err;
  const dim3 grid(unsigned(p.seq.N) * (kV / kSliceV), unsigned(p.Hv));
  state_pass::state_pass_kernel<kSliceV><<<grid, kThreads, smem, reinterpret_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}

}  // namespace gdn2::kernels
