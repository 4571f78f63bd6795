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
//     every product as wgmma with A from registers: each product's A is the previous product's
//     accumulator, rounded to TF32 (wgmma.cuh, acc_to_a); the factors are the B operands;
//   - the producer warpgroup: warp 0 copies each factor group into shared memory (bulk copies
//     completing on "full" barriers) as soon as every consumer has released the previous chunk's
//     copy ("empty" barriers); warp 1 + i copies consumer i's rows of v and w (one TMA box each) the
//     same way; warp 3 stores each consumer's output tile to global memory once it is staged
//     (o_full) and releases it (o_empty). With two consumers the producers give their registers to
//     them (setmaxnreg).
// Shared memory carries only the factors, v, w (each read once per chunk and consumer) and the
// output tiles; a consumer never waits for another warpgroup's products, only for copies and for
// its output tile of the previous chunk to be stored (a whole chunk earlier).
#pragma once

#include <atomic>

#include "kernels/state_pass_common.cuh"
#include "kernels/wgmma.cuh"

namespace gdn2::kernels::state_pass_rs {

constexpr int kSliceV = 64;      // value channels per consumer warpgroup
constexpr int kMkStages = 2;     // M, Kend^T and gamma are double-buffered: the last products of
                                 // chunk c + 1 need not wait for a copy issued after chunk c's last
                                 // products
// Registers per thread after setmaxnreg with two consumers: 2 x 128 x 232 + 128 x 40 = 64512.
constexpr int kConsumerRegs = 232, kProducerRegs = 40;

// The factor groups of a chunk, in the layout of its factor block (T and M read packed and
// unpacked into the full layout: copy_triangle).
constexpr int kKqFloats = factor_block::kT - factor_block::kKb;      // Kb, Qg
constexpr int kMkFloats = factor_block::kFloats - factor_block::kM;  // M, Kend^T, gamma
constexpr int kKendGammaFloats = factor_block::kFloats - factor_block::kKendT;

// A [64 tokens][64 channels] bf16 tile (v, w or the output of one consumer), in the TMA's 128-byte
// swizzle (kernel_params.h, swizzled_tile_offset): the consumer's accesses (tokens 8 j + 2 t + e for
// the four t of a warp, eight channels of one 16-byte part) fall on distinct banks.
static_assert(kTileChannels == kSliceV, "a tile holds one consumer's channels");
constexpr int kTile = kC * kSliceV;

// The tiles need 1024-byte alignment (TMA's 128-byte swizzle): the struct is aligned so, and dynamic
// shared memory starts at the window's base (the kernel has no static shared memory).
template <int kConsumers>
struct alignas(1024) Smem {
  float kq[kKqFloats];
  float t[kSquareFloats];
  float mk[kMkStages][kMkFloats];
  uint16_t v[kConsumers][kTile];  // v and w of each consumer's slice for one chunk; rows past the
  uint16_t w[kConsumers][kTile];  // chunk's end are not read
  uint16_t o[kConsumers][kTile];  // each consumer's output of the chunk, staged for 16-byte stores
  uint64_t mk_full[kMkStages], mk_empty[kMkStages];
  uint64_t kq_full, kq_empty, t_full, t_empty;
  uint64_t vw_full[kConsumers], vw_empty[kConsumers];
  uint64_t o_full[kConsumers], o_empty[kConsumers];
};

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
  constexpr uint32_t kKendGammaBytes = uint32_t(kKendGammaFloats) * sizeof(float);
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const float* block = p.factors + (int64_t(hk) * p.slots + ch.slot) * factor_block::kFloats;
    if (c > 0) mbarrier_wait(&sm.kq_empty, uint32_t(c - 1) & 1);
    fence_proxy_async();
    bulk_load(sm.kq, block + factor_block::kKb, uint32_t(sizeof(sm.kq)), &sm.kq_full);
    if (c > 0) mbarrier_wait(&sm.t_empty, uint32_t(c - 1) & 1);
    fence_proxy_async();
    mbarrier_expect_bytes(&sm.t_full, kTriangleBytes);
    copy_triangle(sm.t, block + factor_block::kT, &sm.t_full);
    const int stage = int(c % kMkStages);
    const uint32_t use = uint32_t(c / kMkStages);  // how often this stage was filled before
    if (use > 0) mbarrier_wait(&sm.mk_empty[stage], (use - 1) & 1);
    fence_proxy_async();
    mbarrier_expect_bytes(&sm.mk_full[stage], kTriangleBytes + kKendGammaBytes);
    copy_triangle(sm.mk[stage], block + factor_block::kM, &sm.mk_full[stage]);
    bulk_copy(sm.mk[stage] + (factor_block::kKendT - factor_block::kM), block + factor_block::kKendT, kKendGammaBytes,
              &sm.mk_full[stage]);
  }
}

// Producer warp 3: each consumer's output tile of each chunk, once staged (o_full), to the rows of
// the chunk in 16-byte stores; then the tile is released (o_empty). The consumers' chain never
// waits for global stores.
template <int kConsumers>
__device__ void store_outputs(const StatePassParams& p, const SeqBounds& sb, int s, int h, int v0, int64_t nchunks,
                              Smem<kConsumers>& sm) {
  constexpr int kParts = kSliceV / 8;  // 16-byte parts of a row; lane l always stores part l % kParts
  const int lane = threadIdx.x & 31, part = lane % kParts;
  const int64_t row_stride = int64_t(p.Hv) * kV;
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    for (int i = 0; i < kConsumers; ++i) {
      const uint16_t* so = sm.o[i];
      uint16_t* out = p.out + ch.t0 * row_stride + h * kV + v0 + kSliceV * i + 8 * part;
      mbarrier_wait(&sm.o_full[i], uint32_t(c) & 1);
#pragma unroll 2
      for (int tok = lane / kParts; tok < ch.len; tok += 32 / kParts)
        *reinterpret_cast<uint4*>(out + tok * row_stride) =
            *reinterpret_cast<const uint4*>(so + swizzled_tile_offset(tok, 8 * part));
      mbarrier_arrive(&sm.o_empty[i]);
    }
  }
}

// The row that thread `tid` of a consumer warpgroup addresses in an ldmatrix / stmatrix of four
// 8x8 matrices of a [token][channel] tile (swizzled_tile_offset): lane l, row l % 8 of matrix
// k = l / 8 = (j - 2 jp, hh), i.e. token 8 j + l % 8, channels 16 w + 8 hh .. + 7 (w: its warp).
__device__ __forceinline__ int tile_matrix_row(int jp, int tid) {
  const int lane = tid & 31, k = lane >> 3, j = 2 * jp + (k >> 1), hh = k & 1;
  return swizzled_tile_offset(8 * j + (lane & 7), 16 * (tid / 32) + 8 * hh);
}

// Consumer warpgroup i, value channels [v0, v0 + 64). Thread (warp w, lane (g, t)) of the warpgroup
// holds rows v = 16 w + g and v + 8 of every accumulator (value channels of the slice) and columns
// 8 j + 2 t, + 1 (key channels of S^T, tokens of R^T, U^T and O^T). (Products of n128 and n192 that
// share their A, [R^T | O^T] and [O^T | S1^T], measured slower than these n64 and n128 ones:
// docs/performance.md.)
template <int kConsumers>
__device__ __forceinline__ void consume(const StatePassParams& p, const SeqBounds& sb, int s, int h, int v0,
                                        StateOffsets state, int64_t nchunks, int i, Smem<kConsumers>& sm) {
  constexpr int kStepsK = kK / 8, kStepsC = kC / 8;
  const int tid = threadIdx.x % kWarpgroup, lane = threadIdx.x & 31;
  const int row = 16 * (tid / 32) + (lane >> 2), col = 2 * (lane & 3);
  const uint16_t* sv = sm.v[i];
  const uint16_t* sw = sm.w[i];
  uint16_t* so = sm.o[i];

  float st[kK / 2];  // S^T: st[4 j + 2 hh + e] = S^T(row + 8 hh, 8 j + col + e); state layout [V][K]
#pragma unroll
  for (int j = 0; j < kK / 8; ++j)
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      st[4 * j + 2 * hh] = st[4 * j + 2 * hh + 1] = 0.f;
      if (state.h0 >= 0) load_state<2>(p, state.h0 + (row + 8 * hh) * kK + 8 * j + col, &st[4 * j + 2 * hh]);
    }

  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const uint32_t parity = uint32_t(c) & 1;
    const int stage = int(c % kMkStages);
    const float* kb = sm.kq + (factor_block::kKb - factor_block::kKb);
    const float* qg = sm.kq + (factor_block::kQg - factor_block::kKb);
    const float* mqk = sm.mk[stage] + (factor_block::kM - factor_block::kM);
    const float* kend_t = sm.mk[stage] + (factor_block::kKendT - factor_block::kM);
    const float* gamma = sm.mk[stage] + (factor_block::kGamma - factor_block::kM);

    // R^T starts as (w*v)^T (zero past the chunk's end: exact, a product of two bf16 fits in
    // fp32). The tiles are [token][channel]; ldmatrix .trans hands each thread the
    // accumulator's (channel, token pair) directly: matrix (j, hh) is tokens 8 j .. 8 j + 7 x
    // channels 16 w + 8 hh .. + 7, four matrices per instruction (tile_matrix_row).
    float r[kC / 2], o[kC / 2];
    mbarrier_wait(&sm.vw_full[i], parity);
#pragma unroll
    for (int jp = 0; jp < kC / 16; ++jp) {
      uint32_t vv[4], ww[4];
      ldmatrix_x4_trans(vv, sv + tile_matrix_row(jp, tid));
      ldmatrix_x4_trans(ww, sw + tile_matrix_row(jp, tid));
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int j = 2 * jp + (k >> 1), hh = k & 1;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float x = bf16_to_float(uint16_t(vv[k] >> (16 * e))) * bf16_to_float(uint16_t(ww[k] >> (16 * e)));
          r[4 * j + 2 * hh + e] = x;
        }
      }
    }
    mbarrier_arrive(&sm.vw_empty[i]);
    if (ch.len < kC) {  // the last chunk of a sequence: zero past its end (uniform branch)
#pragma unroll
      for (int j = 0; j < kC / 8; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k)
          if (8 * j + col + (k & 1) >= ch.len) r[4 * j + k] = 0.f;
    }

    // R^T -= S^T Kb^T and O^T = S^T Qg^T, both with S^T (rounded to TF32) as A (O^T's first k-step
    // adds zero: its registers are not read).
    uint32_t sa[kK / 2];
    acc_to_a<kStepsK>(st, sa);
    mbarrier_wait(&sm.kq_full, parity);
    fence_operands(r);
    fence_operands(o);
    fence_operands(sa);
    wgmma_fence();
    wgmma_issue<kC, -1, kK, kStepsK>(r, sa, kb);
    wgmma_issue<kC, 1, kK, kStepsK, false>(o, sa, qg);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(r);
    fence_operands(o);
    fence_operands(sa);
    mbarrier_arrive(&sm.kq_empty);

    // U^T = R^T T^T.
    uint32_t ra[kC / 2];
    acc_to_a<kStepsC>(r, ra);
    float u[kC / 2];  // not read: the product's first k-step adds zero
    mbarrier_wait(&sm.t_full, parity);
    fence_operands(u);
    fence_operands(ra);
    wgmma_fence();
    wgmma_issue<kC, 1, kC, kStepsC, false>(u, ra, sm.t);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(u);
    fence_operands(ra);
    mbarrier_arrive(&sm.t_empty);

    // O^T += U^T M^T and S1^T = S^T diag(gamma) + U^T Kend.
    uint32_t ua[kC / 2];
    acc_to_a<kStepsC>(u, ua);
    mbarrier_wait(&sm.mk_full[stage], uint32_t(c / kMkStages) & 1);
#pragma unroll
    for (int j = 0; j < kK / 8; ++j) {
      const float2 gm = *reinterpret_cast<const float2*>(gamma + 8 * j + col);
      st[4 * j] *= gm.x;
      st[4 * j + 1] *= gm.y;
      st[4 * j + 2] *= gm.x;
      st[4 * j + 3] *= gm.y;
    }
    fence_operands(o);
    fence_operands(st);
    fence_operands(ua);
    wgmma_fence();
    wgmma_issue<kC, 1, kC, kStepsC>(o, ua, mqk);
    wgmma_issue<kK, 1, kC, kStepsC>(st, ua, kend_t);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(o);
    fence_operands(st);
    fence_operands(ua);
    mbarrier_arrive(&sm.mk_empty[stage]);

    // O = scale (O^T)^T staged in shared memory once the producer has stored the previous chunk's
    // tile; the producer's warp 3 stores its rows (store_outputs).
    if (c > 0) mbarrier_wait(&sm.o_empty[i], uint32_t(c - 1) & 1);
#pragma unroll
    for (int jp = 0; jp < kC / 16; ++jp) {
      uint32_t packed[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int at = 4 * (2 * jp + (k >> 1)) + 2 * (k & 1);
        packed[k] = bf16_pair(p.scale * o[at], p.scale * o[at + 1]);
      }
      stmatrix_x4_trans(so + tile_matrix_row(jp, tid), packed);
    }
    mbarrier_arrive(&sm.o_full[i]);
  }
  if (state.ht >= 0) {  // straight from the fp32 registers
#pragma unroll
    for (int j = 0; j < kK / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
        store_state<2>(p, state.ht + (row + 8 * hh) * kK + 8 * j + col, &st[4 * j + 2 * hh]);
  }
}

// The (sequence, value head, first value channel) of this CTA. CTAs start in the order of their
// index (x fastest). With p.order the grid is (Hv x slices, N): the sequences by rank (longest
// first, so that past the first wave the short sequences fill the SMs that the long ones leave,
// instead of a long sequence starting last), head by head within each; else (N x slices, Hv).
// Either way every index but the order's load is recomputed from blockIdx for free, which keeps
// the consumers within their registers.
struct CtaSlice {
  int s, h, v0;
};
template <int kWidth>
__device__ __forceinline__ CtaSlice slice_of_cta(const StatePassParams& p) {
  constexpr int kSlices = kV / kWidth;
  const int v0 = int(blockIdx.x % kSlices) * kWidth;
  if (p.order != nullptr) return {p.order[blockIdx.y], int(blockIdx.x / kSlices), v0};
  return {int(blockIdx.x / kSlices), int(blockIdx.y), v0};
}

// One CTA per (sequence, value head, slice of kConsumers x 64 channels): warpgroup 0 produces,
// warpgroups 1 .. kConsumers consume.
template <int kConsumers>
__global__ void __launch_bounds__(kWarpgroup * (1 + kConsumers), 1)
    state_pass_kernel_rs(const __grid_constant__ StatePassParams p) {
  constexpr int kThreads = kWarpgroup * (1 + kConsumers), kWidth = kSliceV * kConsumers;
  extern __shared__ float4 smem_raw[];
  Smem<kConsumers>& sm = *reinterpret_cast<Smem<kConsumers>*>(smem_raw);
  // Launched behind phase 1 under kAuto's choice on the device (kernel_params.h), plainly
  // otherwise, where the wait is a no-op.
  wait_for_prior_grid();
  if (phase1_skipped(p)) return;  // before p.order, which phase 1 then did not write
  // Phase 1 has completed, so p.order is written. It is a permutation of
  // the sequences even for an inconsistent cu_seqlens, so the fault path below covers every row.
  const CtaSlice cta = slice_of_cta<kWidth>(p);
  const int s = cta.s, h = cta.h, v0 = cta.v0, hk = h / (p.Hv / p.Hq);
  const SliceWork work = slice_work(p, s, h, v0);
  const SeqBounds sb = work.sb;
  const int64_t nchunks = work.nchunks;

  if (phase1_fault<kThreads>(p)) {  // inconsistent cu_seqlens: NaN in every output row and state (documented)
    fill_nan<kWidth, kThreads>(p, s, h, v0, work.state.ht);
    return;
  }
  if (work.state.bad()) {  // a state index past its pool
    fill_nan_rows<kWidth, kThreads>(p, sb, h, v0);
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
      mbarrier_init(&sm.o_full[k], kWarpgroup);
      mbarrier_init(&sm.o_empty[k], 32);
    }
    fence_barrier_init();
  }
  zero_above_triangle(sm.t, threadIdx.x, kThreads);
  for (int k = 0; k < kMkStages; ++k) zero_above_triangle(sm.mk[k], threadIdx.x, kThreads);
  __syncthreads();  // the only CTA barrier: afterwards the roles meet only at the mbarriers
  const int wg = warpgroup_index();
  if (wg == 0) {
    if constexpr (kConsumers > 1) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
    const int warp = threadIdx.x / 32;
    if (warp == 0) {
      if ((threadIdx.x & 31) == 0) produce_factors(p, sb, s, hk, nchunks, sm);
    } else if (warp <= kConsumers && (threadIdx.x & 31) == 0) {
      produce_vw(p, sb, s, h, v0 + kSliceV * (warp - 1), nchunks, warp - 1, sm);
    } else if (warp == 3) {
      store_outputs(p, sb, s, h, v0, nchunks, sm);
    }
  } else {
    if constexpr (kConsumers > 1) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kConsumerRegs));
    const int i = wg - 1;
    // Consumer i's channels start kSliceV i rows further into each state that is there.
    StateOffsets state = work.state;
    const int64_t rows = int64_t(kSliceV * i) * kK;
    if (state.h0 >= 0) state.h0 += rows;
    if (state.ht >= 0) state.ht += rows;
    consume(p, sb, s, h, v0 + kSliceV * i, state, nchunks, i, sm);
  }
}

}  // namespace gdn2::kernels::state_pass_rs

namespace gdn2::kernels {

// Grid (N x 128 / (64 kConsumers), Hv), or with p.order (Hv x 128 / (64 kConsumers), N)
// (slice_of_cta); plain launch (launched behind phase 1 it measured 2-3% slower with one consumer:
// docs/performance.md, 4825f11), except under kAuto's choice on the device.
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
  constexpr unsigned kSlices = kV / (kSliceV * kConsumers);
  const dim3 grid = p.order != nullptr ? dim3(unsigned(p.Hv) * kSlices, unsigned(p.seq.N))
                                       : dim3(unsigned(p.seq.N) * kSlices, unsigned(p.Hv));
  // The longer path under kAuto's choice on the device starts behind the shorter one's grid.
  const bool after_prior = p.seq.choice != kAlwaysRuns;
  return launch_ex(state_pass_kernel_rs<kConsumers>, grid, kWarpgroup * (1 + kConsumers), smem, stream, after_prior, 1, q);
}

}  // namespace gdn2::kernels
