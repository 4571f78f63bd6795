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

// The factor groups of a chunk, in order of use, each one bulk copy of a contiguous piece of the
// chunk's factor block (kernel_params.h) into the same layout here, completing on its own barrier.
enum Group { kGroupKbQg, kGroupT, kGroupMKendGamma, kGroups };
__host__ __device__ constexpr int group_begin(int grp) {
  return grp == kGroupKbQg ? factor_block::kKb : grp == kGroupT ? factor_block::kT : factor_block::kM;
}
__host__ __device__ constexpr int group_end(int grp) {
  return grp == kGroupKbQg ? factor_block::kT : grp == kGroupT ? factor_block::kM : factor_block::kFloats;
}

// The factor block (A operands, fragment-major, TF32) followed by the products this CTA forms,
// stored as B operands (fragment-major, TF32): the state slice S, R and U.
template <int kSliceV>
struct Smem {
  float factors[factor_block::kFloats];
  float st[kSliceV * kK];     // S  [K][kSliceV]  (8 k-pairs per n8 tile)
  float rt[kSliceV * kC];     // R  [64][kSliceV] (4 k-pairs per n8 tile)
  float ut[kSliceV * kC];     // U  [64][kSliceV]
  uint64_t full[kGroups];     // one barrier per factor group, one phase per chunk
};

// One chunk of the sequence: its first token, length and factor slot.
struct ChunkRef {
  int64_t t0;
  int len;
  int64_t slot;
};
__device__ __forceinline__ ChunkRef chunk_ref(const SeqBounds& sb, int s, int64_t c) {
  const int64_t t0 = sb.bos + c * kC;
  return {t0, int(sb.eos - t0 < kC ? sb.eos - t0 : int64_t(kC)), sb.bos / kC + s + c};
}

// Thread 0: the bulk copy of one factor group of chunk `ch` (the caller has made the buffer free:
// a CTA barrier after its last reader).
template <int kSliceV>
__device__ __forceinline__ void issue_group(int grp, const StatePassParams& p, int hk, const ChunkRef& ch,
                                            Smem<kSliceV>& sm) {
  const float* block = p.factors + (int64_t(hk) * p.slots + ch.slot) * factor_block::kFloats;
  fence_proxy_async();
  bulk_load(sm.factors + group_begin(grp), block + group_begin(grp),
            uint32_t(group_end(grp) - group_begin(grp)) * uint32_t(sizeof(float)), &sm.full[grp]);
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
  constexpr int kStatePairs = kK / 16, kChunkPairs = kC / 16;  // k-pairs per n8 tile of S; of R, U
  static_assert(kRowTiles >= 1 && kStateTiles >= 1, "slice too narrow for the warp count");
  extern __shared__ float4 smem_raw[];
  Smem<kSliceV>& sm = *reinterpret_cast<Smem<kSliceV>*>(smem_raw);
  const float* kb = sm.factors + factor_block::kKb;
  const float* tinv = sm.factors + factor_block::kT;
  const float* qg = sm.factors + factor_block::kQg;
  const float* mqk = sm.factors + factor_block::kM;
  const float* kend_t = sm.factors + factor_block::kKendT;
  const float* gamma = sm.factors + factor_block::kGamma;
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
  // Three steps per chunk c, one CTA barrier each ("wait X" = the barrier of group X, phase c & 1):
  //   wait KbQg(c),  sync, issue MKendGamma(c), R = w*v - Kb S and Qg S;
  //   wait T(c),     sync, issue KbQg(c+1),     U = T R;
  //   wait MKend(c), sync, issue T(c+1),        O = scale (Qg S + M U) and S1 = gamma S + Kend^T U.
  // Each CTA barrier also publishes the previous step's products and frees the buffer refilled
  // next; every copy has two steps to land. S is read in the first step only, so the last step
  // may overwrite it.
  if (threadIdx.x == 0) {
    for (int grp = 0; grp < kGroups; ++grp) mbarrier_init(&sm.full[grp], 1);
    fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0 && nchunks > 0) {
    const ChunkRef first = chunk_ref(sb, s, 0);
    issue_group(kGroupKbQg, p, hk, first, sm);
    issue_group(kGroupT, p, hk, first, sm);
  }

  // This warp's part of the state in fp32 registers, in the accumulator layout of its tiles of the
  // [K][kSliceV] product Kend^T U: key channels srow, srow + 8, value channels 8 (sn0 + j) + 2 t (+1).
  // Global layout [V][K]: element (n, c) at n * K + c.
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
    store_acc_as_b<kStatePairs>(sm.st, sm_t, sn0 + j, state[j], lane);
  }

  // This warp's tiles in the [64][kSliceV] products: rows 16 mt .., n8 tiles nt0 ..
  const int mt = warp / (kTiles / kRowTiles), nt0 = (warp % (kTiles / kRowTiles)) * kRowTiles;
  const float* st_tiles = sm.st + nt0 * kStatePairs * 128;
  // v and w of this thread's accumulator positions, one chunk ahead: rows 16 mt + g (+ 8).
  const int64_t vw_col = int64_t(h) * kV + v0 + 8 * nt0 + 2 * t;
  uint32_t vraw[kRowTiles][2], wraw[kRowTiles][2];
  auto load_vw = [&](const ChunkRef& ch) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = 16 * mt + g + 8 * half;
      const int64_t off = (ch.t0 + row) * p.Hv * kV + vw_col;
#pragma unroll
      for (int j = 0; j < kRowTiles; ++j) {
        vraw[j][half] = row < ch.len ? *reinterpret_cast<const uint32_t*>(p.v + off + 8 * j) : 0u;
        wraw[j][half] = row < ch.len ? *reinterpret_cast<const uint32_t*>(p.w + off + 8 * j) : 0u;
      }
    }
  };
  if (nchunks > 0) load_vw(chunk_ref(sb, s, 0));

  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const ChunkRef next = chunk_ref(sb, s, c + 1);
    const bool has_next = c + 1 < nchunks;
    const uint32_t parity = uint32_t(c & 1);

    // w * v at this thread's accumulator positions (zero past the chunk's end), then the next chunk's.
    float wv[kRowTiles][4];
#pragma unroll
    for (int j = 0; j < kRowTiles; ++j)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        wv[j][2 * half] = bf16_to_float(uint16_t(vraw[j][half] & 0xffffu)) * bf16_to_float(uint16_t(wraw[j][half] & 0xffffu));
        wv[j][2 * half + 1] = bf16_to_float(uint16_t(vraw[j][half] >> 16)) * bf16_to_float(uint16_t(wraw[j][half] >> 16));
      }
    if (has_next) load_vw(next);

    // R = w*v - Kb S, and the first half of O
    float out[kRowTiles][4] = {};
    mbarrier_wait(&sm.full[kGroupKbQg], parity);
    __syncthreads();  // the previous chunk's state copy is complete; M, Kend are free
    if (threadIdx.x == 0) issue_group(kGroupMKendGamma, p, hk, ch, sm);
    {
      float acc[kRowTiles][4] = {};
      mma_frag<kRowTiles, kStatePairs, kStatePairs>(acc, kb + mt * (kK / 8) * 128, st_tiles, lane);
      mma_frag<kRowTiles, kStatePairs, kStatePairs>(out, qg + mt * (kK / 8) * 128, st_tiles, lane);
#pragma unroll
      for (int j = 0; j < kRowTiles; ++j) {
        const float r[4] = {wv[j][0] - acc[j][0], wv[j][1] - acc[j][1], wv[j][2] - acc[j][2], wv[j][3] - acc[j][3]};
        store_acc_as_b<kChunkPairs>(sm.rt, mt, nt0 + j, r, lane);
      }
    }

    // U = T R (T is lower triangular)
    mbarrier_wait(&sm.full[kGroupT], parity);
    __syncthreads();
    if (threadIdx.x == 0 && has_next) issue_group(kGroupKbQg, p, hk, next, sm);
    {
      float acc[kRowTiles][4] = {};
      mma_frag_lower<kRowTiles, kChunkPairs>(acc, mt, tinv + mt * (kC / 8) * 128, sm.rt + nt0 * kChunkPairs * 128,
                                             lane);
#pragma unroll
      for (int j = 0; j < kRowTiles; ++j) store_acc_as_b<kChunkPairs>(sm.ut, mt, nt0 + j, acc[j], lane);
    }

    // O = scale (Qg S + M U);  S1 = gamma * S + Kend^T U (this warp's part of the state)
    mbarrier_wait(&sm.full[kGroupMKendGamma], parity);
    __syncthreads();
    if (threadIdx.x == 0 && has_next) issue_group(kGroupT, p, hk, next, sm);
    {
      mma_frag_lower<kRowTiles, kChunkPairs>(out, mt, mqk + mt * (kC / 8) * 128, sm.ut + nt0 * kChunkPairs * 128,
                                             lane);
      const float gamma_lo = gamma[srow], gamma_hi = gamma[srow + 8];
      float acc[kStateTiles][4] = {};
      mma_frag<kStateTiles, kChunkPairs, kChunkPairs>(acc, kend_t + sm_t * (kC / 8) * 128,
                                                      sm.ut + sn0 * kChunkPairs * 128, lane);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = 16 * mt + g + 8 * half;
        if (row < ch.len) {
          const int64_t off = (ch.t0 + row) * p.Hv * kV + vw_col;
#pragma unroll
          for (int j = 0; j < kRowTiles; ++j) {
            const uint32_t packed = uint32_t(float_to_bf16(p.scale * out[j][2 * half])) |
                                    (uint32_t(float_to_bf16(p.scale * out[j][2 * half + 1])) << 16);
            *reinterpret_cast<uint32_t*>(p.out + off + 8 * j) = packed;
          }
        }
      }
#pragma unroll
      for (int j = 0; j < kStateTiles; ++j) {
        state[j][0] = gamma_lo * state[j][0] + acc[j][0];
        state[j][1] = gamma_lo * state[j][1] + acc[j][1];
        state[j][2] = gamma_hi * state[j][2] + acc[j][2];
        state[j][3] = gamma_hi * state[j][3] + acc[j][3];
        store_acc_as_b<kStatePairs>(sm.st, sm_t, sn0 + j, state[j], lane);
      }
    }
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
