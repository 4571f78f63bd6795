// Phase 2 with the state in registers (wgmma with A from registers, B from shared memory), for
// problems of more than one wave of 32-channel slices: the sequential pass over the chunks of one
// sequence (docs/algorithm.md, value side), transposed so that the state is the left operand of
// every product it enters:
//   R^T = (w*v)^T - S^T Kb^T;  U^T = R^T T^T;  O^T = scale (S^T Qg^T + U^T M^T);
//   S1^T = S^T diag(gamma) + U^T Kend.
// Value channels evolve independently, so a consumer warpgroup owns a slice of 64 value channels of
// one (sequence, value head), the M = 64 rows of every product. A CTA has kConsumers of them
// (state_pass_v64.cu: one, two CTAs per head; state_pass_v128.cu: two, one CTA per head, which
// forms and reads each chunk's factors once for 128 channels); the CTAs of a head do not communicate.
//
// Two roles (docs/design.md, "Phase 2"):
//   - each consumer warpgroup holds its S^T (64 x 128, fp32) in registers across chunks and runs
//     every product as wgmma with A from registers: each product's A is the previous product's
//     accumulator, rounded to TF32 (wgmma.cuh, acc_to_a); the factors are the B operands;
//   - the producer warpgroup forms Kb, Qg, Kend^T and gamma of each chunk from q, k, b and g (the
//     decayed rows, which phase 1 then need not write: of a factor block it writes only T and M,
//     kernel_params.h, triangle_block), copies T and M (bulk copies), and v and w of each consumer's
//     slice (one TMA box each), each into its buffer as soon as every consumer has released the
//     previous chunk's contents ("empty" barriers); the consumers wait on "full" barriers.
// Shared memory carries only the factors, v, w (each read once per chunk and consumer) and the
// output tiles; a consumer never waits for another warpgroup's products, only for its producer.
#pragma once

#include <atomic>

#include "kernels/state_pass_common.cuh"
#include "kernels/wgmma.cuh"

namespace gdn2::kernels::state_pass_rs {

constexpr int kSliceV = 64;      // value channels per consumer warpgroup
constexpr int kWarpgroup = 128;  // threads
constexpr int kMkStages = 2;     // M, Kend^T and gamma are double-buffered: the last products of
                                 // chunk c + 1 need not wait for their producer to finish chunk c

// A [64 tokens][64 channels] bf16 tile (v, w or the output of one consumer), in the TMA's 128-byte
// swizzle (kernel_params.h, swizzled_tile_offset): the consumer's accesses (tokens 8 j + 2 t + e for
// the four t of a warp, eight channels of one 16-byte part) fall on distinct banks.
static_assert(kTileChannels == kSliceV, "a tile holds one consumer's channels");
constexpr int kTile = kC * kSliceV;

// Kb, Qg and Kend^T in the 128-byte swizzle (kernel_params.h, sw128_offset), formed here by the
// producer warpgroup; T and M copied from phase 1's packed triangles into the canonical layout
// (copy_triangle). The swizzled operands and the tiles need 1024-byte alignment: the struct is
// aligned so, every array before them is a multiple of 1024 bytes, and dynamic shared memory starts
// at the window's base (the kernel has no static shared memory).
// The factors of a chunk's last products (double-buffered), one stage together, so that a consumer
// needs one stage-dependent address.
struct alignas(1024) MkStage {
  float kend[kK * kC];
  float m[kSquareFloats];
  float gamma[kK];
};
template <int kConsumers>
struct alignas(1024) Smem {
  float kb[kC * kK];
  float qg[kC * kK];
  MkStage mk[kMkStages];
  float t[kSquareFloats];
  uint16_t v[kConsumers][kTile];  // v and w of each consumer's slice for one chunk; rows past the
  uint16_t w[kConsumers][kTile];  // chunk's end are not read
  uint16_t o[kConsumers][kTile];  // each consumer's output of the chunk, staged for 16-byte stores
  uint64_t mk_full[kMkStages], mk_empty[kMkStages];
  uint64_t kq_full, kq_empty, t_full;
  uint64_t vw_full[kConsumers];
};

// Arrivals that complete a phase of each "full" barrier: Kb/Qg by the whole producer warpgroup;
// M/Kend^T/gamma by the warpgroup and the copy of M (one more arrival, with its bytes); T by its copy.
constexpr int kKqFullArrivals = kWarpgroup, kMkFullArrivals = kWarpgroup + 1;

// A decay factor exp2(l), l = decay_log2(g) <= 0, in one instruction (ex2.approx, relative error
// about 2^-22; factors below 2^-126, which no product can tell from zero, flush to zero).
__device__ __forceinline__ float decay_factor(float l) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(l));
  return d;
}

// The producer warpgroup's thread `c` (one key channel): Kend^T's row c, Kend^T(c, j) = k_j[c] P(j,
// last) (a backward running product of the decay factors, as phase 1 formed it), and gamma[c] from the
// summed log decays (docs/algorithm.md). Rows past the chunk's end are zero keys with decay 1. Loads of
// the chunk are issued together (each from a valid row: a branch per load would serialise them); the stores are 16-byte vectors of positions 4 u .. 4 u + 3 (tokens
// 0, 2, 4, 6 and 1, 3, 5, 7 of each 8, kernel_params.h, k_position), rows c of 8 consecutive threads
// on distinct banks.
__device__ __forceinline__ void form_kend_gamma(const StatePassParams& p, int hk, const ChunkRef& ch, float* kend,
                                                float* gamma) {
  const int c = threadIdx.x % kWarpgroup;
  const int64_t stride = int64_t(p.Hq) * kK, at = (ch.t0 * p.Hq + hk) * kK + c;
  float kv[kC], lv[kC];
#pragma unroll
  for (int i = 0; i < kC; ++i) {  // unconditional loads (a clamped row), so that all are in flight at once
    const int tok = i, src = tok < ch.len ? tok : ch.len - 1;
    const uint16_t k_raw = p.k[at + src * stride];
    const float g_raw = p.g[at + src * stride];
    kv[i] = tok < ch.len ? bf16_to_float(k_raw) : 0.f;
    lv[i] = tok < ch.len ? decay_log2(g_raw) : 0.f;
  }
  float r = 1.f, log2_sum = 0.f;
#pragma unroll
  for (int g8 = kC / 8 - 1; g8 >= 0; --g8) {
    float x[8];
#pragma unroll
    for (int i = 7; i >= 0; --i) {
      x[i] = tf32_operand(kv[8 * g8 + i] * r);
      r *= decay_factor(lv[8 * g8 + i]);
      log2_sum += lv[8 * g8 + i];
    }
    *reinterpret_cast<float4*>(kend + sw128_offset(c, 8 * g8, kK)) = make_float4(x[0], x[2], x[4], x[6]);
    *reinterpret_cast<float4*>(kend + sw128_offset(c, 8 * g8 + 4, kK)) = make_float4(x[1], x[3], x[5], x[7]);
  }
  gamma[c] = exp2f(log2_sum);
}

// The producer warpgroup's share of Qg_i = q_i P(-1, i) and Kb_i = (b_i * k_i) P(-1, i): thread
// (warp w, lane l) takes channels 8 grp .. 8 grp + 7, grp = 4 w + l % 4, of tokens 8 tb .. 8 tb + 7,
// tb = l / 4. Each block's decay product is passed along the eight token blocks (lanes 4 apart) as
// an exclusive prefix. The loads and the prefix are done before Kb and Qg's buffer is free.
struct RowInputs {  // token 8 tb + i, channels 8 grp .. 8 grp + 7 (zero past the chunk's end)
  uint4 q[8], k[8], b[8];
  float4 g[8][2];
};
__device__ __forceinline__ int64_t row_offset(const StatePassParams& p, int hk, const ChunkRef& ch, int tok) {
  const int lane = threadIdx.x & 31, grp = 4 * ((threadIdx.x % kWarpgroup) / 32) + (lane & 3);
  return ((ch.t0 + tok) * p.Hq + hk) * kK + 8 * grp;
}
__device__ __forceinline__ RowInputs row_inputs(const StatePassParams& p, int hk, const ChunkRef& ch) {
  const int tb = (threadIdx.x & 31) >> 2;
  RowInputs in;
#pragma unroll
  for (int i = 0; i < 8; ++i) {  // unconditional loads of a clamped row, as in form_kend_gamma
    const int tok = 8 * tb + i;
    const int64_t off = row_offset(p, hk, ch, tok < ch.len ? tok : ch.len - 1);
    in.q[i] = *reinterpret_cast<const uint4*>(p.q + off);
    in.k[i] = *reinterpret_cast<const uint4*>(p.k + off);
    in.b[i] = *reinterpret_cast<const uint4*>(p.b + off);
    in.g[i][0] = *reinterpret_cast<const float4*>(p.g + off);
    in.g[i][1] = *reinterpret_cast<const float4*>(p.g + off + 4);
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
    if (8 * tb + i >= ch.len) {
      in.q[i] = in.k[i] = in.b[i] = make_uint4(0u, 0u, 0u, 0u);
      in.g[i][0] = in.g[i][1] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  return in;
}
// Decay factor d of channel 8 grp + e of token 8 tb + i.
__device__ __forceinline__ void row_decays(const RowInputs& in, int i, float (&d)[8]) {
  const float g[8] = {in.g[i][0].x, in.g[i][0].y, in.g[i][0].z, in.g[i][0].w,
                      in.g[i][1].x, in.g[i][1].y, in.g[i][1].z, in.g[i][1].w};
#pragma unroll
  for (int e = 0; e < 8; ++e) d[e] = decay_factor(decay_log2(g[e]));
}
// P(-1, 8 tb - 1) of each of the thread's channels: an exclusive scan of the blocks' products.
__device__ __forceinline__ void row_prefix(const RowInputs& in, float (&pre)[8]) {
  const int lane = threadIdx.x & 31;
  float prod[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    float d[8];
    row_decays(in, i, d);
#pragma unroll
    for (int e = 0; e < 8; ++e) prod[e] = i == 0 ? d[e] : prod[e] * d[e];
  }
#pragma unroll
  for (int e = 0; e < 8; ++e) {  // inclusive scan over the token blocks (lanes 4, 8, 16 apart), then shifted by one block
    float v = prod[e], up;
    up = __shfl_up_sync(0xffffffffu, v, 4);
    if (lane >= 4) v *= up;
    up = __shfl_up_sync(0xffffffffu, v, 8);
    if (lane >= 8) v *= up;
    up = __shfl_up_sync(0xffffffffu, v, 16);
    if (lane >= 16) v *= up;
    up = __shfl_up_sync(0xffffffffu, v, 4);
    pre[e] = lane >= 4 ? up : 1.f;
  }
}
// Then the rows, once the buffer is free. Stores: 16-byte vectors of positions 8 grp + 4 u .. + 3
// (channels 8 grp + u, + 2, + 4, + 6) of one token; the threads of odd token blocks store u = 1
// first, so that the 8 threads of each quarter warp hit the 8 parts of a 128-byte row (sw128_offset).
__device__ __forceinline__ void form_qg_kb(const RowInputs& in, const float (&pre)[8], float* qg, float* kb) {
  const int lane = threadIdx.x & 31, grp = 4 * ((threadIdx.x % kWarpgroup) / 32) + (lane & 3), tb = lane >> 2;
  const bool odd_first = tb & 1;
  float r[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) r[e] = pre[e];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int tok = 8 * tb + i;
    float q[8], k[8], b[8], d[8], xq[8], xb[8];
    unpack_bf16x8(in.q[i], q);
    unpack_bf16x8(in.k[i], k);
    unpack_bf16x8(in.b[i], b);
    row_decays(in, i, d);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      r[e] *= d[e];
      xq[e] = tf32_operand(q[e] * r[e]);
      xb[e] = tf32_operand((b[e] * k[e]) * r[e]);  // b * k is exact in fp32
    }
    const float4 q_even = make_float4(xq[0], xq[2], xq[4], xq[6]), q_odd = make_float4(xq[1], xq[3], xq[5], xq[7]);
    const float4 b_even = make_float4(xb[0], xb[2], xb[4], xb[6]), b_odd = make_float4(xb[1], xb[3], xb[5], xb[7]);
    const int first = sw128_offset(tok, 8 * grp + (odd_first ? 4 : 0), kC);
    const int second = sw128_offset(tok, 8 * grp + (odd_first ? 0 : 4), kC);
    *reinterpret_cast<float4*>(qg + first) = odd_first ? q_odd : q_even;
    *reinterpret_cast<float4*>(kb + first) = odd_first ? b_odd : b_even;
    *reinterpret_cast<float4*>(qg + second) = odd_first ? q_even : q_odd;
    *reinterpret_cast<float4*>(kb + second) = odd_first ? b_even : b_odd;
  }
}

// The chunk's rows of q, k, b and g into L2 (no completion to wait for): thread t of the producer
// warpgroup sends token t % 64 of q and k (t < 64) or of b and g.
__device__ __forceinline__ void prefetch_rows(const StatePassParams& p, int hk, const ChunkRef& ch) {
  const int t = threadIdx.x % kWarpgroup, tok = t % kC;
  if (tok >= ch.len) return;
  const int64_t off = ((ch.t0 + tok) * p.Hq + hk) * kK;
  if (t < kC) {
    prefetch_l2(p.q + off, kK * sizeof(uint16_t));
    prefetch_l2(p.k + off, kK * sizeof(uint16_t));
  } else {
    prefetch_l2(p.b + off, kK * sizeof(uint16_t));
    prefetch_l2(p.g + off, kK * sizeof(float));
  }
}

// M, Kend^T and gamma of chunk c into stage c % 2, once the consumers have released its contents
// (chunk c - 2): thread 0 copies M (phase 1's packed triangle), the warpgroup forms the rest.
template <int kConsumers>
__device__ __forceinline__ void produce_mk(const StatePassParams& p, const SeqBounds& sb, int s, int hk, int64_t c,
                                           Smem<kConsumers>& sm) {
  const ChunkRef ch = chunk_ref(sb, s, c);
  const int stage = int(c % kMkStages);
  const uint32_t use = uint32_t(c / kMkStages);  // how often this stage was filled before
  if (use > 0) mbarrier_wait(&sm.mk_empty[stage], (use - 1) & 1);
  fence_proxy_async();  // the consumers' reads (async proxy) before this stage's writes
  if (threadIdx.x % kWarpgroup == 0) {
    mbarrier_expect_bytes(&sm.mk_full[stage], kTriangleBytes);
    copy_triangle(sm.mk[stage].m, p.factors + (int64_t(hk) * p.slots + ch.slot) * factor_block::kFloats + triangle_block::kM,
                  &sm.mk_full[stage]);
  }
  form_kend_gamma(p, hk, ch, sm.mk[stage].kend, sm.mk[stage].gamma);
  fence_proxy_async();  // the generic stores before the consumers' wgmma read them
  mbarrier_arrive(&sm.mk_full[stage]);
}

// The producer warpgroup. Per chunk c, in the order the consumers need them: lane 0 of warp 1 + i
// copies consumer i's slice of v and w (one TMA box each); the warpgroup forms Kb and Qg (its loads
// and decay factors first, the stores once the consumers have released chunk c - 1's); thread 0
// copies T (phase 1's packed triangle, kernel_params.h, triangle_block); then M, Kend^T and gamma
// of chunk c + 1 (double-buffered: chunk c's were formed one iteration earlier). Each buffer is
// written once every consumer has released its previous contents ("empty" barriers); each writer
// fences its generic stores before arriving on the "full" barrier, so that the consumers' wgmma
// (the async proxy) see them. The rows of q, k, b and g go to L2 two chunks ahead.
template <int kConsumers>
__device__ void produce(const StatePassParams& p, const SeqBounds& sb, int s, int h, int hk, int v0, int64_t nchunks,
                        Smem<kConsumers>& sm) {
  if (nchunks > 1) prefetch_rows(p, hk, chunk_ref(sb, s, 1));
  if (nchunks > 0) produce_mk(p, sb, s, hk, 0, sm);
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    if (c + 2 < nchunks) prefetch_rows(p, hk, chunk_ref(sb, s, c + 2));
    const RowInputs in = row_inputs(p, hk, ch);
    float pre[8];
    row_prefix(in, pre);
    if (c > 0) mbarrier_wait(&sm.kq_empty, uint32_t(c - 1) & 1);
    fence_proxy_async();
    form_qg_kb(in, pre, sm.qg, sm.kb);
    fence_proxy_async();
    mbarrier_arrive(&sm.kq_full);

    if (c + 1 < nchunks) produce_mk(p, sb, s, hk, c + 1, sm);
  }
}

// One thread of consumer i: its slice of v and w for chunk `ch`, one TMA box each, into `v` and `w`
// (whose previous contents every thread of the warpgroup has read: a warpgroup barrier precedes).
__device__ __forceinline__ void copy_vw(const StatePassParams& p, const ChunkRef& ch, int h, int v0, uint64_t* full,
                                       const uint16_t* v, const uint16_t* w) {
  fence_proxy_async();  // the warpgroup's generic reads of the tiles before the copies' writes
  mbarrier_expect_bytes(full, 2 * kTile * sizeof(uint16_t));
  tma_load_2d(const_cast<uint16_t*>(v), &p.v_map, h * kV + v0, int(ch.t0), full);
  tma_load_2d(const_cast<uint16_t*>(w), &p.w_map, h * kV + v0, int(ch.t0), full);
}

// One thread of the consumer: T of chunk `ch` (phase 1's packed triangle, kernel_params.h,
// triangle_block) into `t` (whose previous contents the warpgroup's products have read).
__device__ __forceinline__ void copy_t(const StatePassParams& p, const ChunkRef& ch, int hk, uint64_t* full, float* t) {
  fence_proxy_async();
  mbarrier_expect_bytes(full, kTriangleBytes);
  copy_triangle(t, p.factors + (int64_t(hk) * p.slots + ch.slot) * factor_block::kFloats + triangle_block::kT, full);
}

// Consumer i's warpgroup barrier (ids 1, 2; 0 is __syncthreads).
__device__ __forceinline__ void sync_consumer(int i) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(1 + i) : "memory");
}

// Consumer warpgroup i, value channels [v0, v0 + 64). Thread (warp w, lane (g, t)) of the warpgroup
// holds rows v = 16 w + g and v + 8 of every accumulator (value channels of the slice) and columns
// 8 j + 2 t, + 1 (key channels of S^T, tokens of R^T, U^T and O^T). (Products of n128 and n192 that
// share their A, [R^T | O^T] and [O^T | S1^T], measured slower than these n64 and n128 ones:
// docs/performance.md.)
template <int kConsumers>
__device__ __forceinline__ void consume(const StatePassParams& p, const SeqBounds& sb, int s, int h, int hk, int v0,
                                        int64_t state_off, int64_t nchunks, int i, Smem<kConsumers>& sm) {
  constexpr int kStepsK = kK / 8, kStepsC = kC / 8;
  const int tid = threadIdx.x % kWarpgroup, lane = threadIdx.x & 31;
  const int row = 16 * (tid / 32) + (lane >> 2), col = 2 * (lane & 3);
  const uint16_t* sv = sm.v[i];
  const uint16_t* sw = sm.w[i];
  uint16_t* so = sm.o[i];

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

  if (tid == 0 && nchunks > 0) {
    copy_vw(p, chunk_ref(sb, s, 0), h, v0, &sm.vw_full[i], sv, sw);
    copy_t(p, chunk_ref(sb, s, 0), hk, &sm.t_full, sm.t);
  }
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const uint32_t parity = uint32_t(c) & 1;
    const int stage = int(c % kMkStages);
    const float* mqk = sm.mk[stage].m;
    const float* kend_t = sm.mk[stage].kend;
    const float* gamma = sm.mk[stage].gamma;

    // R^T starts as (w*v)^T (zero past the chunk's end: exact, a product of two bf16 fits in
    // fp32), O^T as zero.
    float r[kC / 2], o[kC / 2];
    mbarrier_wait(&sm.vw_full[i], parity);
    // The tile offsets are recomputed each chunk: held across the loop they cost 32 registers.
    int tile_row = row;
    asm volatile("" : "+r"(tile_row));
#pragma unroll
    for (int j = 0; j < kC / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int tok = 8 * j + col + e, at = swizzled_tile_offset(tok, tile_row + 8 * hh);
          r[4 * j + 2 * hh + e] = tok < ch.len ? bf16_to_float(sv[at]) * bf16_to_float(sw[at]) : 0.f;
          o[4 * j + 2 * hh + e] = 0.f;
        }
    // Every thread has its values: thread 0 copies the next chunk's tiles into the same buffers.
    sync_consumer(i);
    if (tid == 0 && c + 1 < nchunks) copy_vw(p, chunk_ref(sb, s, c + 1), h, v0, &sm.vw_full[i], sv, sw);

    // R^T -= S^T Kb^T and O^T = S^T Qg^T, both with S^T (rounded to TF32) as A.
    uint32_t sa[kK / 2];
    acc_to_a<kStepsK>(st, sa);
    mbarrier_wait(&sm.kq_full, parity);
    fence_operands(r);
    fence_operands(o);
    fence_operands(sa);
    wgmma_fence();
    wgmma_issue<kC, -1, kK, kStepsK, true>(r, sa, sm.kb);
    wgmma_issue<kC, 1, kK, kStepsK, true>(o, sa, sm.qg);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(r);
    fence_operands(o);
    fence_operands(sa);
    mbarrier_arrive(&sm.kq_empty);

    // U^T = R^T T^T.
    uint32_t ra[kC / 2];
    acc_to_a<kStepsC>(r, ra);
    float u[kC / 2];
#pragma unroll
    for (int k = 0; k < kC / 2; ++k) u[k] = 0.f;
    mbarrier_wait(&sm.t_full, parity);
    fence_operands(u);
    fence_operands(ra);
    wgmma_fence();
    wgmma_issue<kC, 1, kC, kStepsC>(u, ra, sm.t);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(u);
    fence_operands(ra);
    // Every thread's product has read T: thread 0 copies the next chunk's into the same buffer.
    sync_consumer(i);
    if (tid == 0 && c + 1 < nchunks) copy_t(p, chunk_ref(sb, s, c + 1), hk, &sm.t_full, sm.t);

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
    wgmma_issue<kK, 1, kC, kStepsC, true>(st, ua, kend_t);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(o);
    fence_operands(st);
    fence_operands(ua);
    mbarrier_arrive(&sm.mk_empty[stage]);

    // O = scale (O^T)^T through shared memory, then 16-byte stores of rows inside the chunk.
    sync_consumer(i);  // the previous chunk's rows are stored
#pragma unroll
    for (int j = 0; j < kC / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          so[swizzled_tile_offset(8 * j + col + e, row + 8 * hh)] = float_to_bf16(p.scale * o[4 * j + 2 * hh + e]);
    sync_consumer(i);
    constexpr int kParts = kSliceV / 8;
#pragma unroll
    for (int idx = tid; idx < kC * kParts; idx += kWarpgroup) {
      const int tok = idx / kParts, part = idx % kParts;
      if (tok < ch.len)
        *reinterpret_cast<uint4*>(p.out + ((ch.t0 + tok) * p.Hv + h) * kV + v0 + 8 * part) =
            *reinterpret_cast<const uint4*>(so + swizzled_tile_offset(tok, 8 * part));
    }
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
      mbarrier_init(&sm.mk_full[k], kMkFullArrivals);
      mbarrier_init(&sm.mk_empty[k], kWarpgroup * kConsumers);
    }
    mbarrier_init(&sm.kq_full, kKqFullArrivals);
    mbarrier_init(&sm.t_full, 1);
    mbarrier_init(&sm.kq_empty, kWarpgroup * kConsumers);
    for (int k = 0; k < kConsumers; ++k) {
      mbarrier_init(&sm.vw_full[k], 1);
    }
    fence_barrier_init();
  }
  zero_above_triangle(sm.t, threadIdx.x, kThreads);
  for (int k = 0; k < kMkStages; ++k) zero_above_triangle(sm.mk[k].m, threadIdx.x, kThreads);
  __syncthreads();  // the only CTA barrier: afterwards the roles meet only at the mbarriers
  // The producer warpgroup computes too (produce): it keeps the registers of the launch bound.
  static_assert(kConsumers == 1,
                "two consumers need 232 registers each, which leaves the producer 48 (setmaxnreg): too few to form the rows");
  if (threadIdx.x < kWarpgroup) {
    produce(p, sb, s, h, hk, v0, nchunks, sm);
  } else {
    const int i = threadIdx.x / kWarpgroup - 1;
    consume(p, sb, s, h, hk, v0 + kSliceV * i, work.state_off + int64_t(kSliceV * i) * kK, nchunks, i, sm);
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
