// Phase 2 with the state in registers (wgmma with A from registers, B from shared memory), for
// problems of more than one wave of 32-channel slices: the sequential pass over the chunks of one
// sequence (docs/algorithm.md, value side), transposed so that the state is the left operand of
// every product it enters:
//   R^T = (w*v)^T - S^T Kb^T;  U^T = R^T T^T;  O^T = scale (S^T Qg^T + U^T M^T);
//   S1^T = S^T diag(gamma) + U^T Kend.
// Value channels evolve independently, so a consumer warpgroup owns a slice of 64 value channels of
// one (sequence, value head), the M = 64 rows of every product. A CTA has kConsumers of them
// (state_pass_v64.cu: one, two CTAs per head; state_pass_v128.cu: two, one CTA per head, which
// copies and reads each chunk's factors once for 128 channels); the CTAs of a head do not communicate.
//
// Two roles (docs/design.md, "Phase 2"):
//   - each consumer warpgroup holds its S^T (64 x 128, fp32) in registers across chunks and runs
//     every product as fp16 wgmma with A from registers: each product's A is the previous product's
//     accumulator (or S^T) with one power-of-two scale per row (wgmma.cuh, acc_to_a16); the
//     factors, as phase 1 stores them in factor_block16 (fp16 with a scale per row of the B
//     operand), are the B operands. Each product's result takes both scales back (the A row's and
//     the B row's, a column of the result) in fp32; a product whose result is added to something
//     (R = w*v - ..., O, S1) gets its own accumulator for that (docs/algorithm.md, "Precision");
//   - the producer warpgroup: warp 0 copies each factor group into shared memory (bulk copies
//     completing on "full" barriers) as soon as every consumer has released the previous chunk's
//     copy ("empty" barriers); warp 1 + i copies consumer i's rows of v and w (one TMA box each) the
//     same way. With two consumers the producers give their registers to them (setmaxnreg).
// Shared memory carries only the factors, v, w (each read once per chunk and consumer) and the
// output tiles; a consumer never waits for another warpgroup's products, only for copies.
#pragma once

#include <atomic>

#include "kernels/state_pass_common.cuh"
#include "kernels/wgmma.cuh"

namespace gdn2::kernels::state_pass_rs {

constexpr int kSliceV = 64;      // value channels per consumer warpgroup
constexpr int kWarpgroup = 128;  // threads
constexpr int kMkStages = 2;     // M, Kend^T and gamma are double-buffered: the last products of
                                 // chunk c + 1 need not wait for a copy issued after chunk c's last
                                 // products
// Registers per thread after setmaxnreg with two consumers: 2 x 128 x 232 + 128 x 40 = 64512.
constexpr int kConsumerRegs = 232, kProducerRegs = 40;

// The factor groups of a chunk (factor_block16), in shared memory: Kb, Qg and their scales (one bulk
// copy); T (unpacked into the full layout: copy_triangle16), then its scales; M (unpacked), then
// Kend^T, gamma, M's and Kend^T's scales (one bulk copy).
namespace fb = factor_block16;
constexpr int kKqBytes = fb::kT - fb::kKb;
constexpr int kTScaleAt = kSquareBytes16;                    // in the T buffer
constexpr int kTBytes = kTScaleAt + 4 * kC;
constexpr int kKendAt = kSquareBytes16;                      // in an M buffer: Kend^T ..
constexpr int kMkTailBytes = fb::kBytes - fb::kKendT;        // .. the Kend scales
constexpr int kMkBytes = kKendAt + kMkTailBytes;
constexpr int kGammaAt = kKendAt + (fb::kGamma - fb::kKendT), kMScaleAt = kKendAt + (fb::kMScale - fb::kKendT),
              kKendScaleAt = kKendAt + (fb::kKendScale - fb::kKendT);

// A [64 tokens][64 channels] bf16 tile (v, w or the output of one consumer), in the TMA's 128-byte
// swizzle (kernel_params.h, swizzled_tile_offset): the consumer's accesses (tokens 8 j + 2 t + e for
// the four t of a warp, eight channels of one 16-byte part) fall on distinct banks.
static_assert(kTileChannels == kSliceV, "a tile holds one consumer's channels");
constexpr int kTile = kC * kSliceV;

// The tiles need 1024-byte alignment (TMA's 128-byte swizzle): they come first in the struct, which
// is aligned so, and dynamic shared memory starts at the window's base (the kernel has no static
// shared memory).
template <int kConsumers>
struct alignas(1024) Smem {
  uint16_t v[kConsumers][kTile];  // v and w of each consumer's slice for one chunk; rows past the
  uint16_t w[kConsumers][kTile];  // chunk's end are not read
  uint16_t o[kConsumers][kTile];  // each consumer's output of the chunk, staged for 16-byte stores
  float2 qs[kConsumers][kC / 4][kWarpgroup];  // S^T Qg^T of each consumer thread, parked (consume)
  alignas(16) char kq[kKqBytes];
  alignas(16) char t[kTBytes];
  alignas(16) char mk[kMkStages][kMkBytes];
  uint64_t mk_full[kMkStages], mk_empty[kMkStages];
  uint64_t kq_full, kq_empty, t_full, t_empty;
  uint64_t vw_full[kConsumers], vw_empty[kConsumers];
};
static_assert(kKqBytes % 16 == 0 && kTBytes % 16 == 0 && kMkBytes % 16 == 0, "bulk copies of 16-byte pieces");

// Producer warp 1 + i, lane 0: consumer i's slice of v and w for each chunk, one TMA box each
// (64 tokens from the chunk's first; rows past the chunk's end are other tokens or zeros, not read).
template <int kConsumers>
__device__ void produce_vw(const StatePassParams& p, const SeqBounds& sb, int s, int h, int v0, int64_t nchunks,
                           int i, Smem<kConsumers>& sm) {
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    if (c > 0) mbarrier_wait(&sm.vw_empty[i], uint32_t(c - 1) & 1);
    fence_proxy_async();  // the consumer's generic reads of the tiles before the copies' writes
    mbarrier_expect_bytes(&sm.vw_full[i], 2 * kTile * sizeof(uint16_t));
    tma_load_2d(sm.v[i], &p.v_map, h * kV + v0, int(ch.t0), &sm.vw_full[i]);
    tma_load_2d(sm.w[i], &p.w_map, h * kV + v0, int(ch.t0), &sm.vw_full[i]);
  }
}

// Producer warp 0, lane 0: per chunk Kb/Qg, T, then M/Kend^T/gamma, each issued once the consumers
// have released the buffer's previous contents. Each fence orders the consumers' generic reads of
// the buffer before the copies' writes.
template <int kConsumers>
__device__ void produce_factors(const StatePassParams& p, const SeqBounds& sb, int s, int hk, int64_t nchunks,
                                Smem<kConsumers>& sm) {
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const char* block = static_cast<const char*>(p.factors) + (int64_t(hk) * p.slots + ch.slot) * fb::kBytes;
    if (c > 0) mbarrier_wait(&sm.kq_empty, uint32_t(c - 1) & 1);
    fence_proxy_async();
    bulk_load(sm.kq, block + fb::kKb, uint32_t(kKqBytes), &sm.kq_full);
    if (c > 0) mbarrier_wait(&sm.t_empty, uint32_t(c - 1) & 1);
    fence_proxy_async();
    mbarrier_expect_bytes(&sm.t_full, uint32_t(fb::kTriangleBytes + 4 * kC));
    copy_triangle16(sm.t, block + fb::kT, &sm.t_full);
    bulk_copy(sm.t + kTScaleAt, block + fb::kTScale, uint32_t(4 * kC), &sm.t_full);
    const int stage = int(c % kMkStages);
    const uint32_t use = uint32_t(c / kMkStages);  // how often this stage was filled before
    if (use > 0) mbarrier_wait(&sm.mk_empty[stage], (use - 1) & 1);
    fence_proxy_async();
    mbarrier_expect_bytes(&sm.mk_full[stage], uint32_t(fb::kTriangleBytes + kMkTailBytes));
    copy_triangle16(sm.mk[stage], block + fb::kM, &sm.mk_full[stage]);
    bulk_copy(sm.mk[stage] + kKendAt, block + fb::kKendT, uint32_t(kMkTailBytes), &sm.mk_full[stage]);
  }
}

// Consumer i's warpgroup barrier (ids 1, 2; 0 is __syncthreads).
__device__ __forceinline__ void sync_consumer(int i) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(1 + i) : "memory");
}

// The row that lane `lane` of consumer warp w addresses in call q (0..3) of a transposed 8x8-matrix
// load or store (ldmatrix_x4_trans, stmatrix_x4_trans) of a consumer's tile: matrix m = lane / 8 is
// tokens 8 j .. 8 j + 7, j = 2 q + m / 2, channels 8 b .. 8 b + 7, b = 2 w + m % 2. Register m of the
// call then holds, in the accumulator's layout, tokens 8 j + 2 t, + 1 of channel 16 w + g + 8 (m % 2):
// accumulator elements 2 p and 2 p + 1, p = 4 q + m.
__device__ __forceinline__ int tile_row_offset(int q, int lane, int w) {
  const int m = lane >> 3;
  return swizzled_tile_offset(8 * (2 * q + (m >> 1)) + (lane & 7), 8 * (2 * w + (m & 1)));
}

// S1^T = S^T diag(gamma) + Z for key channels 64 kHalf .. 64 kHalf + 63: Z is U^T Kend of those
// channels, in the scales of U's rows (u_up) and Kend^T's rows (kend_up, a column of Z).
template <int kHalf>
__device__ __forceinline__ void fold_state(float (&st)[kK / 2], const float (&z)[kC / 2], const float* gamma,
                                           const float* kend_up, const float (&u_up)[2], int col) {
#pragma unroll
  for (int j = 0; j < kC / 8; ++j) {
    const int ch = kC * kHalf + 8 * j + col;
    const float2 gm = *reinterpret_cast<const float2*>(gamma + ch);
    const float2 ku = *reinterpret_cast<const float2*>(kend_up + ch);
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      float* x = st + kC / 2 * kHalf + 4 * j + 2 * hh;
      x[0] = x[0] * gm.x + z[4 * j + 2 * hh] * (u_up[hh] * ku.x);
      x[1] = x[1] * gm.y + z[4 * j + 2 * hh + 1] * (u_up[hh] * ku.y);
    }
  }
}

// Consumer warpgroup i, value channels [v0, v0 + 64). Thread (warp w, lane (g, t)) of the warpgroup
// holds rows v = 16 w + g and v + 8 of every accumulator (value channels of the slice) and columns
// 8 j + 2 t, + 1 (key channels of S^T, tokens of R^T, U^T and O^T). Every product is m64 n64 k16:
// S1^T's 128 key channels are two products, the second running while the chunk's output is stored.
template <int kConsumers>
__device__ __forceinline__ void consume(const StatePassParams& p, const SeqBounds& sb, int s, int h, int v0,
                                        int64_t state_off, int64_t nchunks, int i, Smem<kConsumers>& sm) {
  constexpr int kStepsK = kK / 16, kStepsC = kC / 16;
  constexpr int kHalfK = kK / 2;  // S1^T's key channels per product
  const int tid = threadIdx.x % kWarpgroup, lane = threadIdx.x & 31;
  const int warp = tid / 32, row = 16 * warp + (lane >> 2), col = 2 * (lane & 3);
  const uint16_t* sv = sm.v[i];
  const uint16_t* sw = sm.w[i];
  uint16_t* so = sm.o[i];
  // S^T Qg^T waits here (this thread's own slots: no barrier) from the chunk's first products to its
  // last, which keeps the registers of the last products under the launch bound's 168.
  float2 (&qs)[kC / 4][kWarpgroup] = sm.qs[i];

  float st[kK / 2];  // S^T: st[4 j + 2 hh + e] = S^T(row + 8 hh, 8 j + col + e); state layout [V][K]
  const float* h0 = p.initial_state ? p.initial_state + state_off : nullptr;
#pragma unroll
  for (int j = 0; j < kK / 8; ++j)
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      float2 x = make_float2(0.f, 0.f);
      if (h0) x = *reinterpret_cast<const float2*>(h0 + (row + 8 * hh) * kK + 8 * j + col);
      st[4 * j + 2 * hh] = x.x;
      st[4 * j + 2 * hh + 1] = x.y;
    }

  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const uint32_t parity = uint32_t(c) & 1;
    const int stage = int(c % kMkStages);
    const char* mk = sm.mk[stage];
    const float* kb_up = reinterpret_cast<const float*>(sm.kq + (fb::kKbScale - fb::kKb));
    const float* qg_up = reinterpret_cast<const float*>(sm.kq + (fb::kQgScale - fb::kKb));
    const float* t_up = reinterpret_cast<const float*>(sm.t + kTScaleAt);
    const float* gamma = reinterpret_cast<const float*>(mk + kGammaAt);
    const float* m_up = reinterpret_cast<const float*>(mk + kMScaleAt);
    const float* kend_up = reinterpret_cast<const float*>(mk + kKendScaleAt);

    // X = S^T Kb^T and O^T = S^T Qg^T, both with S^T as A; then R^T = (w*v)^T - X (zero past the
    // chunk's end: there Kb's rows are zero, and w*v is exact, a product of two bf16 fits in fp32).
    float s_up[2];
    uint32_t sa[4 * kStepsK];
    acc_to_a16<kStepsK>(st, sa, s_up);
    float r[kC / 2], o[kC / 2];
#pragma unroll
    for (int k = 0; k < kC / 2; ++k) r[k] = o[k] = 0.f;
    mbarrier_wait(&sm.kq_full, parity);
    fence_operands(r);
    fence_operands(o);
    fence_operands(sa);
    wgmma_fence();
    wgmma_issue16<kK, kStepsK>(r, sa, sm.kq + (fb::kKb - fb::kKb));
    wgmma_issue16<kK, kStepsK>(o, sa, sm.kq + (fb::kQg - fb::kKb));
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(r);
    fence_operands(o);
    fence_operands(sa);
    mbarrier_wait(&sm.vw_full[i], parity);
    uint32_t vp[kC / 4], wp[kC / 4];  // pairs of tokens: accumulator elements 2 p, 2 p + 1
#pragma unroll
    for (int q = 0; q < kC / 16; ++q) {
      uint32_t x[4];
      ldmatrix_x4_trans(x, sv + tile_row_offset(q, lane, warp));
#pragma unroll
      for (int m = 0; m < 4; ++m) vp[4 * q + m] = x[m];
      ldmatrix_x4_trans(x, sw + tile_row_offset(q, lane, warp));
#pragma unroll
      for (int m = 0; m < 4; ++m) wp[4 * q + m] = x[m];
    }
    mbarrier_arrive(&sm.vw_empty[i]);
#pragma unroll
    for (int pr = 0; pr < kC / 4; ++pr) {
      const int j = pr >> 1, hh = pr & 1, tok = 8 * j + col;
      const float2 kb = *reinterpret_cast<const float2*>(kb_up + tok);
      const float2 qg = *reinterpret_cast<const float2*>(qg_up + tok);
      const float wv0 = tok < ch.len ? bf16_lo(vp[pr]) * bf16_lo(wp[pr]) : 0.f;
      const float wv1 = tok + 1 < ch.len ? bf16_hi(vp[pr]) * bf16_hi(wp[pr]) : 0.f;
      r[2 * pr] = wv0 - r[2 * pr] * (s_up[hh] * kb.x);
      r[2 * pr + 1] = wv1 - r[2 * pr + 1] * (s_up[hh] * kb.y);
      o[2 * pr] *= s_up[hh] * qg.x;
      o[2 * pr + 1] *= s_up[hh] * qg.y;
      qs[pr][tid] = make_float2(o[2 * pr], o[2 * pr + 1]);
    }
    mbarrier_arrive(&sm.kq_empty);

    // U^T = R^T T^T.
    float r_up[2];
    uint32_t ra[4 * kStepsC];
    acc_to_a16<kStepsC>(r, ra, r_up);
    float u[kC / 2];
#pragma unroll
    for (int k = 0; k < kC / 2; ++k) u[k] = 0.f;
    mbarrier_wait(&sm.t_full, parity);
    fence_operands(u);
    fence_operands(ra);
    wgmma_fence();
    wgmma_issue16<kC, kStepsC>(u, ra, sm.t);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(u);
    fence_operands(ra);
#pragma unroll
    for (int j = 0; j < kC / 8; ++j) {
      const float2 tu = *reinterpret_cast<const float2*>(t_up + 8 * j + col);
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        u[4 * j + 2 * hh] *= r_up[hh] * tu.x;
        u[4 * j + 2 * hh + 1] *= r_up[hh] * tu.y;
      }
    }
    mbarrier_arrive(&sm.t_empty);

    // Y = U^T M^T and Z = U^T Kend (key channels 0..63); O^T = S^T Qg^T + Y and S1^T = S^T diag(gamma) + Z.
    float u_up[2];
    uint32_t ua[4 * kStepsC];
    acc_to_a16<kStepsC>(u, ua, u_up);
    float y[kC / 2], z[kC / 2];  // r's and u's registers again
#pragma unroll
    for (int k = 0; k < kC / 2; ++k) y[k] = z[k] = 0.f;
    mbarrier_wait(&sm.mk_full[stage], uint32_t(c / kMkStages) & 1);
    fence_operands(y);
    fence_operands(z);
    fence_operands(ua);
    wgmma_fence();
    wgmma_issue16<kC, kStepsC>(y, ua, mk);
    wgmma_issue16<kC, kStepsC>(z, ua, mk + kKendAt);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(y);
    fence_operands(z);

    // O = scale (S^T Qg^T + Y)^T as bf16 pairs of tokens (accumulator elements 2 p, 2 p + 1).
    uint32_t out[kC / 4];
#pragma unroll
    for (int pr = 0; pr < kC / 4; ++pr) {
      const int j = pr >> 1, hh = pr & 1;
      const float2 mu = *reinterpret_cast<const float2*>(m_up + 8 * j + col);
      const float2 x = qs[pr][tid];
      out[pr] = pack_bf16x2(p.scale * (x.x + y[2 * pr] * (u_up[hh] * mu.x)),
                            p.scale * (x.y + y[2 * pr + 1] * (u_up[hh] * mu.y)));
    }
    // Z' = U^T Kend (key channels 64..127) into y's registers, while Z is taken in and the output
    // is stored: through shared memory (transposed 8x8 stores), then 16-byte stores of the rows
    // inside the chunk.
#pragma unroll
    for (int k = 0; k < kC / 2; ++k) y[k] = 0.f;
    fence_operands(y);
    wgmma_fence();
    wgmma_issue16<kC, kStepsC>(y, ua, mk + kKendAt + kHalfK * kC * 2);
    wgmma_commit();
    fold_state<0>(st, z, gamma, kend_up, u_up, col);
    sync_consumer(i);  // the previous chunk's rows are stored
#pragma unroll
    for (int q = 0; q < kC / 16; ++q)
      stmatrix_x4_trans(so + tile_row_offset(q, lane, warp), {out[4 * q], out[4 * q + 1], out[4 * q + 2], out[4 * q + 3]});
    sync_consumer(i);
    constexpr int kParts = kSliceV / 8;
#pragma unroll
    for (int idx = tid; idx < kC * kParts; idx += kWarpgroup) {
      const int tok = idx / kParts, part = idx % kParts;
      if (tok < ch.len)
        *reinterpret_cast<uint4*>(p.out + ((ch.t0 + tok) * p.Hv + h) * kV + v0 + 8 * part) =
            *reinterpret_cast<const uint4*>(so + swizzled_tile_offset(tok, 8 * part));
    }
    wgmma_wait<0>();
    fence_operands(y);
    fence_operands(ua);
    fold_state<1>(st, y, gamma, kend_up, u_up, col);
    mbarrier_arrive(&sm.mk_empty[stage]);
  }
  if (p.final_state) {  // straight from the fp32 registers
    float* hn = p.final_state + state_off;
#pragma unroll
    for (int j = 0; j < kK / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
        *reinterpret_cast<float2*>(hn + (row + 8 * hh) * kK + 8 * j + col) =
            make_float2(st[4 * j + 2 * hh], st[4 * j + 2 * hh + 1]);
  }
}

// One CTA per (sequence, value head, slice of kConsumers x 64 channels): warpgroup 0 produces,
// warpgroups 1 .. kConsumers consume.
template <int kConsumers>
__global__ void __launch_bounds__(kWarpgroup * (1 + kConsumers), 1)
    state_pass_kernel_rs(const __grid_constant__ StatePassParams p) {
  constexpr int kThreads = kWarpgroup * (1 + kConsumers), kWidth = kSliceV * kConsumers, kSlices = kV / kWidth;
  extern __shared__ float4 smem_raw[];
  Smem<kConsumers>& sm = *reinterpret_cast<Smem<kConsumers>*>(smem_raw);
  const int s = blockIdx.x / kSlices, v0 = (blockIdx.x % kSlices) * kWidth;
  const int h = blockIdx.y, hk = h / (p.Hv / p.Hq);
  const SliceWork work = slice_work(p, s, h, v0);
  const SeqBounds sb = work.sb;
  const int64_t nchunks = work.nchunks;

  if (phase1_fault<kThreads>(p)) {  // inconsistent cu_seqlens: NaN in every output row and state (documented)
    fill_nan<kWidth, kThreads>(p, s, h, v0, work.state_off);
    return;
  }
  if (threadIdx.x == 0) {
    for (int k = 0; k < kMkStages; ++k) {
      mbarrier_init(&sm.mk_full[k], 1);
      mbarrier_init(&sm.mk_empty[k], kWarpgroup * kConsumers);
    }
    mbarrier_init(&sm.kq_full, 1);
    mbarrier_init(&sm.t_full, 1);
    mbarrier_init(&sm.kq_empty, kWarpgroup * kConsumers);
    mbarrier_init(&sm.t_empty, kWarpgroup * kConsumers);
    for (int k = 0; k < kConsumers; ++k) {
      mbarrier_init(&sm.vw_full[k], 1);
      mbarrier_init(&sm.vw_empty[k], kWarpgroup);
    }
    fence_barrier_init();
  }
  zero_above_triangle16(sm.t, threadIdx.x, kThreads);
  for (int k = 0; k < kMkStages; ++k) zero_above_triangle16(sm.mk[k], threadIdx.x, kThreads);
  __syncthreads();  // the only CTA barrier: afterwards the roles meet only at the mbarriers
  // The warpgroup index, uniform across each warp as far as the compiler can tell (setmaxnreg must
  // be executed by whole warpgroups).
  const int wg = __shfl_sync(0xffffffffu, int(threadIdx.x) / kWarpgroup, 0);
  if (wg == 0) {
    if constexpr (kConsumers > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
    const int warp = threadIdx.x / 32;
    if (warp == 0) {
      if ((threadIdx.x & 31) == 0) produce_factors(p, sb, s, hk, nchunks, sm);
    } else if (warp <= kConsumers && (threadIdx.x & 31) == 0) {
      produce_vw(p, sb, s, h, v0 + kSliceV * (warp - 1), nchunks, warp - 1, sm);
    }
  } else {
    if constexpr (kConsumers > 1) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kConsumerRegs));
    const int i = wg - 1;
    consume(p, sb, s, h, v0 + kSliceV * i, work.state_off + int64_t(kSliceV * i) * kK, nchunks, i, sm);
  }
}

}  // namespace gdn2::kernels::state_pass_rs

namespace gdn2::kernels {

// Grid (N x 128 / (64 kConsumers), Hv), plain launch (launched behind phase 1 it measured 2-3%
// slower with one consumer: docs/performance.md, 4825f11).
template <int kConsumers>
int launch_state_pass_rs(const StatePassParams& p, Stream stream) {
  using namespace state_pass_rs;
  const int smem = int(sizeof(Smem<kConsumers>));
  static std::atomic<uint64_t> smem_set{0};
  const int err = allow_dynamic_smem(state_pass_kernel_rs<kConsumers>, smem, smem_set);
  if (err != 0) return err;
  StatePassParams q = p;
  const uint64_t T = uint64_t(p.seq.T), cols = uint64_t(p.Hv) * kV;
  int e = encode_bf16_tile_map(&q.v_map, p.v, T, cols, cols, kC, kSliceV);
  if (e == 0) e = encode_bf16_tile_map(&q.w_map, p.w, T, cols, cols, kC, kSliceV);
  if (e != 0) return e;
  const dim3 grid(unsigned(p.seq.N) * (kV / (kSliceV * kConsumers)), unsigned(p.Hv));
  state_pass_kernel_rs<kConsumers>
      <<<grid, kWarpgroup * (1 + kConsumers), smem, reinterpret_cast<cudaStream_t>(stream)>>>(q);
  return int(cudaGetLastError());
}

}  // namespace gdn2::kernels
