// Phase 1: the key-side factors of one 64-token chunk of one key head (docs/algorithm.md, "One
// chunk"): Qg, Kb, Kend, gamma, M and T = (I + A)^{-1}. Every decay factor is a running product of
// per-token factors d in [0, 1] (or, on the tensor-core path for A and M, its reciprocal within the
// bounds of docs/algorithm.md, "The mid-block reference"). Chunks are independent, so this phase
// runs chunk-parallel over the whole GPU; its results are shared by every value head of the group.
//
// Persistent CTAs, at most one per SM, take (chunk slot, key head) items. An item's chunk is found
// from its slot on the device (binary search over cu_seqlens), so no host-built chunk table and no
// synchronisation is needed. A CTA has two roles that work on consecutive items at once:
//   - four factor warpgroups (kThreads) stage an item's inputs, store its decayed rows and gamma,
//     and form A and M;
//   - one solver warpgroup (kSolverThreads) inverts I + A into T and stores T and M,
// so that item n's inverse and stores overlap item n + 1's rows and products. They meet at two
// shared-memory barriers around A and M (Smem::full, Smem::empty); each role has its own named
// barrier for its internal steps.
#include "kernels/device_common.cuh"

namespace gdn2::kernels {
namespace {

constexpr int kThreads = 512;  // the factor warps: latency-bound steps need many warps in flight
constexpr int kSolverThreads = 128;  // the solver warpgroup
constexpr int kCtaThreads = kThreads + kSolverThreads;
// Both roles fit in the 96 registers per thread that 640 threads leave (ptxas: no spills), so no
// setmaxnreg.
// Named barriers (0 is __syncthreads, used once, after the shared-memory barriers are set up).
constexpr int kFactorBarrier = 1;  // the factor warps' own steps
constexpr int kSolverBarrier = 2;  // the solver's own steps
constexpr int kLd = kK + 4;   // row stride of [64][K] tiles: conflict-free TF32 fragment reads
constexpr int kLdC = kC + 4;  // row stride of [64][64] tiles
constexpr int kOffDiagRows = kC - kBlock;  // rows that the off-diagonal split ever needs on its right

struct Smem {
  float q[kC * kLd];   // q, then Left_q = q_i P(p, i) for rows >= 16
  float k[kC * kLd];
  float bk[kC * kLd];  // b * k, then Left_b for rows >= 16
  float d[kC * kLd];   // the item's g (one TMA box: fetch_g), then its decay factors in place
  float right[kOffDiagRows * kLd];  // Right_j = k_j P(j, p); first the staging of store_decayed_rows
  float A[kC * kLdC];
  float M[kC * kLdC];
  float T[kC * kLdC];                        // the solver's
  float scratch[2 * (kC / kBlock - 1) * kBlock * 8];  // the solver's: X of each block half (invert_block_diagonal)
  float log2_part[kThreads / 32][kK];  // per-channel partial sums of log2 decays, for gamma
  // This CTA's next items and their chunks (advance_schedule): while it works on its n-th item,
  // entry (n + 1) % 2 is (or, with a work counter, becomes in stage 2) its next item's.
  struct {
    int64_t item, t0;
    int len, valid;
  } ahead[2];
  // The item handed to the solver with A and M (written by factor thread 0 between a wait on
  // `empty` and the arrivals on `full`): its factor block, its ready flag, or the end of the CTA's items.
  struct {
    float* block;
    int64_t flag;  // index into p.ready, or -1 (nothing to publish)
    int done;
  } job;
  // The hand-over. Phase n of `full` completes when every factor thread has arrived after writing
  // the n-th handed item's A, M and job; phase n of `empty` when every solver thread has arrived
  // after reading item n - 1's (phase 0: at the solver's start).
  uint64_t full, empty;
  // Phase n completes when the g of the CTA's n-th item with a chunk has landed in `d` (fetch_g).
  uint64_t g_full;
  // Factor thread 0's: an offset of cu_seqlens that this CTA checked is inconsistent (kept here, not
  // in a register held across items).
  int bad_offsets;
};

static_assert(sizeof(Smem) <= kMaxDynamicSmem, "one CTA per SM: at most 227 KB of shared memory");

__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void factor_sync() { named_sync(kFactorBarrier, kThreads); }
__device__ __forceinline__ void solver_sync() { named_sync(kSolverBarrier, kSolverThreads); }
// __syncthreads_and over the factor warps.
__device__ __forceinline__ bool factor_sync_and(bool x) {
  uint32_t all;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.and.pred q, %2, %3, p;\n selp.u32 %0, 1, 0, q;\n}\n"
      : "=r"(all)
      : "r"(uint32_t(x)), "n"(kFactorBarrier), "n"(kThreads)
      : "memory");
  return all != 0;
}

// Optional per-stage timeline of every CTA's items (bench/phase1_timeline.cu; build option
// GDN2_PHASE1_TIMELINE): thread 0 reads the SM clock when the CTA starts and after each factor
// barrier or wait that ends a stage, and solver thread 0 after each of its steps.
#ifdef GDN2_PHASE1_TIMELINE
__device__ long long g_timeline_start[kTimelineCtas];
__device__ long long g_timeline[kTimelineCtas][kTimelineItems][kTimelineMarks];
__device__ int g_timeline_items[kTimelineCtas];
__device__ long long g_solver_timeline[kTimelineCtas][kTimelineItems][kSolverMarks];
__device__ int g_solver_items[kTimelineCtas];
__device__ long long g_end_ns[kTimelineCtas];
__device__ __forceinline__ void timeline_mark(int mark, int item) {
  if (threadIdx.x == 0 && blockIdx.x < kTimelineCtas && item < kTimelineItems)
    g_timeline[blockIdx.x][item][mark] = clock64();
}
__device__ __forceinline__ void solver_timeline_mark(int mark, int item) {
  if (threadIdx.x == kThreads && blockIdx.x < kTimelineCtas && item < kTimelineItems)
    g_solver_timeline[blockIdx.x][item][mark] = clock64();
}
#define GDN2_TIMELINE_START() \
  do { if (threadIdx.x == 0 && blockIdx.x < kTimelineCtas) g_timeline_start[blockIdx.x] = clock64(); } while (0)
#define GDN2_TIMELINE_MARK(mark, item) timeline_mark(mark, item)
#define GDN2_SOLVER_TIMELINE_MARK(mark, item) solver_timeline_mark(mark, item)
#else
#define GDN2_TIMELINE_START() ((void)0)
#define GDN2_TIMELINE_MARK(mark, item) ((void)0)
#define GDN2_SOLVER_TIMELINE_MARK(mark, item) ((void)0)
#endif

// The chunk that `slot` stands for: slots of sequence s are floor(bos_s / 64) + s + c.
struct Chunk {
  int64_t t0;
  int len;
  bool valid;
};
__device__ Chunk chunk_of_slot(const Sequences& seq, int64_t slot) {
  int lo = 0, hi = seq.N - 1;
  while (lo < hi) {  // largest s with base(s) <= slot; base is increasing for valid cu_seqlens
    const int mid = (lo + hi + 1) >> 1;
    if (seq_bounds(seq, mid).bos / kC + mid <= slot) lo = mid; else hi = mid - 1;
  }
  const SeqBounds sb = seq_bounds(seq, lo);
  const int64_t c = slot - (sb.bos / kC + lo);
  const int64_t t0 = sb.bos + c * kC;
  if (c < 0 || t0 >= sb.eos) return {0, 0, false};
  return {t0, int((sb.eos - t0 < kC ? sb.eos - t0 : int64_t(kC))), true};
}

__device__ __forceinline__ void unpack_bf16x8(const uint4& u, float (&f)[8]) {
  const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = bf16_to_float(uint16_t(w[i] & 0xffffu));
    f[2 * i + 1] = bf16_to_float(uint16_t(w[i] >> 16));
  }
}

// One thread's share of a chunk's q, k and b, as loaded: every global load is issued before any
// is used (one memory round trip), and the next chunk's are issued while this one is finished. Its
// g comes by one TMA box into the decay tile (fetch_g).
constexpr int kVecPasses = kC / (kThreads / 16);  // rows of q, k, b: 16 threads per row, 8 channels each
constexpr int kGPasses = kC / (kThreads / 32);    // rows of g: 32 threads per row, 4 channels each
// The row and first channel of a thread's 8 channels of q, k, b in a pass: each warp takes two
// rows, and each 8 lanes (a phase of stage_chunk's 16-byte stores) 4 chunks of each, so that with
// the rows kLd apart (4 banks) the phase's stores fall on distinct banks.
struct VecSlot {
  int row, c0;
};
__device__ __forceinline__ VecSlot vec_slot(int tid, int pass) {
  int lane = tid % 32;
  asm volatile("" : "+r"(lane));  // cheap to recompute: not worth a register held across items
  return {(tid / 32) * 2 + ((lane >> 2) & 1) + pass * (kThreads / 16), ((lane >> 3) * 4 + (lane & 3)) * 8};
}
struct ChunkInputs {
  uint4 q[kVecPasses], k[kVecPasses], b[kVecPasses];
};

// The chunk's rows; rows past its end are zero keys and queries with decay factor 1 (g = 0), which
// keeps every product finite.
__device__ __forceinline__ ChunkInputs fetch_chunk(const ChunkFactorsParams& p, int hk, const Chunk& ch) {
  const int tid = threadIdx.x;
  ChunkInputs in;
  uint4 (&qv)[kVecPasses] = in.q;
  uint4 (&kv)[kVecPasses] = in.k;
  uint4 (&bv)[kVecPasses] = in.b;
#pragma unroll
  for (int pass = 0; pass < kVecPasses; ++pass) {
    const VecSlot at = vec_slot(tid, pass);
    qv[pass] = kv[pass] = bv[pass] = make_uint4(0u, 0u, 0u, 0u);
    if (at.row < ch.len) {
      const int64_t off = ((ch.t0 + at.row) * p.Hq + hk) * kK + at.c0;
      qv[pass] = *reinterpret_cast<const uint4*>(p.q + off);
      kv[pass] = *reinterpret_cast<const uint4*>(p.k + off);
      bv[pass] = *reinterpret_cast<const uint4*>(p.b + off);
    }
  }
  return in;
}

// One factor thread, after a factor barrier that ends every read of `d`: the chunk's g into `d` as
// one TMA box of kLd channels x 64 tokens of head hk, completing the next phase of `g_full`. The
// box lands in d's layout: channels past K (the row padding) and tokens past T arrive as zeros;
// tokens past the chunk's end are masked by stage_chunk. Nothing for an item without a chunk, so
// phase n of g_full is the CTA's n-th item with a chunk (the n-th handed to the solver).
__device__ __forceinline__ void fetch_g(const TensorMap& g_map, Smem& sm, int hk, const Chunk& ch) {
  if (!ch.valid) return;
  fence_proxy_async();  // the factor warps' generic accesses of `d` (ordered by the barrier) before the copy
  mbarrier_expect_bytes(&sm.g_full, uint32_t(sizeof(sm.d)));
  tma_load_3d(sm.d, &g_map, 0, hk, int(ch.t0), &sm.g_full);
}

// The chunk's rows of q, k, b and g into L2 (fire and forget), long before fetch_chunk reads them,
// so that under full HBM load its loads come from L2. Thread t of 128: row t % 64, of q and k
// (t < 64) or of b and g: spread over four warps (one warp issuing all 256 copies took 10,000
// cycles longer, docs/performance.md).
__device__ __forceinline__ void prefetch_chunk(const ChunkFactorsParams& p, int hk, const Chunk& ch, int t) {
  const int r = t & (kC - 1);  // t % kC (t >= 0): one instruction, so recomputed, not held across items (spilled)
  if (!ch.valid || r >= ch.len) return;
  const int64_t off = ((ch.t0 + r) * p.Hq + hk) * kK;
  if (t < kC) {
    prefetch_l2(p.q + off, kK * sizeof(uint16_t));
    prefetch_l2(p.k + off, kK * sizeof(uint16_t));
  } else {
    prefetch_l2(p.b + off, kK * sizeof(uint16_t));
    prefetch_l2(p.g + off, kK * sizeof(float));
  }
}

// q, k, b*k and the decay factors into shared memory (fp32), and the partial log sums for gamma.
// The decay factors replace g in place, once its box has landed (phase `g_phase` of g_full); rows
// past the chunk's end (`len`) act as g = 0. A, M and T are never zeroed: every 16 x 16 block on or
// below the diagonal is written whole, and no one reads the blocks above it (store_square and
// store_triangle skip them).
__device__ void stage_chunk(const ChunkInputs& in, Smem& sm, int len, uint32_t g_phase) {
  const int tid = threadIdx.x;
  const uint4 (&qv)[kVecPasses] = in.q;
  const uint4 (&kv)[kVecPasses] = in.k;
  const uint4 (&bv)[kVecPasses] = in.b;
#pragma unroll
  for (int pass = 0; pass < kVecPasses; ++pass) {
    const VecSlot slot = vec_slot(tid, pass);
    float q[8], k[8], b[8];
    unpack_bf16x8(qv[pass], q);
    unpack_bf16x8(kv[pass], k);
    unpack_bf16x8(bv[pass], b);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int i = 4 * h, at = slot.row * kLd + slot.c0 + i;
      *reinterpret_cast<float4*>(sm.q + at) = make_float4(q[i], q[i + 1], q[i + 2], q[i + 3]);
      *reinterpret_cast<float4*>(sm.k + at) = make_float4(k[i], k[i + 1], k[i + 2], k[i + 3]);
      // exact: a product of two bf16 fits in fp32
      *reinterpret_cast<float4*>(sm.bk + at) = make_float4(b[i] * k[i], b[i + 1] * k[i + 1], b[i + 2] * k[i + 2], b[i + 3] * k[i + 3]);
    }
  }
  float log2_sum[4] = {0.f, 0.f, 0.f, 0.f};  // this thread's rows, in token order
  const int c0 = (tid % 32) * 4;
  mbarrier_wait(&sm.g_full, g_phase & 1u);
#pragma unroll
  for (int pass = 0; pass < kGPasses; ++pass) {
    const int r = tid / 32 + pass * (kThreads / 32);
    float4 gv = *reinterpret_cast<const float4*>(sm.d + r * kLd + c0);  // each thread rewrites what it read
    if (r >= len) gv = make_float4(0.f, 0.f, 0.f, 0.f);
    const float g[4] = {gv.x, gv.y, gv.z, gv.w};
    float d[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float l = decay_log2(g[e]);
      log2_sum[e] += l;
      d[e] = exp2f(l);
    }
    *reinterpret_cast<float4*>(sm.d + r * kLd + c0) = make_float4(d[0], d[1], d[2], d[3]);
  }
  *reinterpret_cast<float4*>(&sm.log2_part[tid / 32][c0]) = make_float4(log2_sum[0], log2_sum[1], log2_sum[2], log2_sum[3]);
}

// Rows row0 .. row0 + 15 of channel c of a [64][K] tile, all loads issued before any use: the
// running products below are serial chains, and each step must not wait for its own load.
__device__ __forceinline__ void load_column(const float* tile, int row0, int c, float (&out)[kBlock]) {
#pragma unroll
  for (int i = 0; i < kBlock; ++i) out[i] = tile[(row0 + i) * kLd + c];
}

// Qg (threads 0..127) and Kb (128..255) from the forward product P(-1, i), gamma, and Kend^T
// (256..383) from the backward product P(i, last): one channel per thread, all 64 rows (rows past
// the chunk's end are zero), as TF32 factor operands (kernel_params.h, factor_offset: K-major, the
// k index permuted within each 8). Kend^T's row is the thread's channel and its k the token, so
// tokens 0, 2, 4, 6 (and 1, 3, 5, 7) of each 8 are one 16-byte vector of its own. Qg and Kb keep
// four channels per vector: thread c of a role computes the channel stored at k position c, each
// warp stages its 32 positions of 16 rows in `right` (free until the off-diagonal blocks; the row
// index XOR the position group keeps the stores on distinct banks) and copies them out as vectors,
// 1 KB contiguous per 8 rows.
constexpr int kRowStagingFloats = 2 * kK / 32 * kBlock * 32;  // in `right`: 16 rows x 32 positions per warp of roles 0, 1
__device__ void store_decayed_rows(float* block, Smem& sm) {
  constexpr int kStage = kBlock * 32;  // floats staged per warp
  const int role = threadIdx.x / kK, c = threadIdx.x % kK;
  if (role > 2) return;
  float r = 1.f;
  if (role == 2) {
    float4* dst = reinterpret_cast<float4*>(block + factor_block::kKendT);
    for (int tb = kC / kBlock - 1; tb >= 0; --tb) {
      float kv[kBlock], dv[kBlock], x[kBlock];
      load_column(sm.k, kBlock * tb, c, kv);
      load_column(sm.d, kBlock * tb, c, dv);
#pragma unroll
      for (int i = kBlock - 1; i >= 0; --i) {
        x[i] = round_tf32(kv[i] * r);
        r *= dv[i];
      }
#pragma unroll
      for (int i = 0; i < kBlock; i += 8) {  // k positions i .. i + 3 hold tokens i, i + 2, i + 4, i + 6
        dst[kmajor_offset(c, kBlock * tb + i, kC) / 4] = make_float4(x[i], x[i + 2], x[i + 4], x[i + 6]);
        dst[kmajor_offset(c, kBlock * tb + i + 4, kC) / 4] = make_float4(x[i + 1], x[i + 3], x[i + 5], x[i + 7]);
      }
    }
  } else {
    const int wr = c / 32, lane = c % 32, grp = lane / 4;  // the warp within its role; position group
    const int channel = k_at_position(c);
    float* stage = sm.right + (threadIdx.x / 32) * kStage;
    static_assert(2 * kK / 32 * kStage == kRowStagingFloats && kRowStagingFloats <= kOffDiagRows * kLd,
                  "staging must fit in `right`");
    const float* x = role == 0 ? sm.q : sm.bk;
    float4* dst = reinterpret_cast<float4*>(block + (role == 0 ? factor_block::kQg : factor_block::kKb));
    for (int step = 0; step < kC / kBlock; ++step) {
      float xv[kBlock], dv[kBlock];
      load_column(x, kBlock * step, channel, xv);
      load_column(sm.d, kBlock * step, channel, dv);
#pragma unroll
      for (int i = 0; i < kBlock; ++i) {
        r *= dv[i];
        stage[(i / 8) * 256 + grp * 32 + ((i % 8) ^ grp) * 4 + lane % 4] = round_tf32(xv[i] * r);
      }
      __syncwarp();
      const float4* src = reinterpret_cast<const float4*>(stage);
#pragma unroll
      for (int v = lane; v < kStage / 4; v += 32) {  // rows 16 step + 8 half + i8, channels 32 wr + 4 g8 ..
        const int half = v / 64, g8 = (v / 8) % 8, i8 = v % 8;
        dst[kmajor_offset(kBlock * step + 8 * half + i8, 32 * wr + 4 * g8, kK) / 4] = src[half * 64 + g8 * 8 + (i8 ^ g8)];
      }
      __syncwarp();
    }
  }
  if (role == 0) {
    // gamma from the summed log decays: a decay that rounds to 1 per token still counts over the
    // chunk, and gamma's error compounds along the sequence (docs/algorithm.md).
    float log2_total = 0.f;
#pragma unroll
    for (int part = 0; part < kThreads / 32; ++part) log2_total += sm.log2_part[part][c];
    block[factor_block::kGamma + c] = exp2f(log2_total);
  }
}

// ---------------------------------------------------------------------------------------------
// A and M on tensor cores, referenced at each block's middle token (docs/algorithm.md, "The
// mid-block reference"). Row block I's reference is p_I = 16 I + 7. Every row i of block I gets
// Left_i = x_i P(p_I, i) (x = q, b*k; for i < p_I the factor is 1 / P(i, p_I)) and
// Right_i = k_i / P(p_I, i) (for i <= p_I: k_i P(i, p_I)), so that
//   A(i, j) = sum_c Left_i[c] c_IJ[c] Right_j[c],  c_IJ = P(p_J, p_I) in [0, 1] (c_II = 1),
// for i in block I, j in block J <= I. A chunk takes this path only if, in every block and channel,
// each half block decays by no less than kMidMinDecay (so no factor is scaled up by more than 2^64)
// and no scaled-up factor exceeds kMidMaxFactor; otherwise it takes the exact path.
constexpr int kMidRow = kBlock / 2 - 1;     // p_I - 16 I
constexpr float kMidMinDecay = 0x1p-64f;    // a half block's decay product must stay above this
constexpr float kMidMaxFactor = 0x1p+96f;   // and every scaled-up factor below this
constexpr int kBlockPairs = kC / kBlock * (kC / kBlock - 1) / 2;  // (I, J), J < I

// Per-channel decays between the block references, in `right` past the staging of
// store_decayed_rows (so that mid_column can write lo and hi while other warps still stage rows).
struct MidScales {
  float lo[kC / kBlock][kK];    // P(16 I - 1, p_I): block I's tokens up to its reference
  float hi[kC / kBlock][kK];    // P(p_I, 16 I + 15): the tokens after it
  float pair[kBlockPairs][kK];  // c_IJ for pair I (I - 1) / 2 + J, in fragment order (below)
};
static_assert(kRowStagingFloats * sizeof(float) + sizeof(MidScales) <= sizeof(Smem::right),
              "the scales must fit in `right` past the staging");
__device__ __forceinline__ MidScales& mid_scales(Smem& sm) {
  return *reinterpret_cast<MidScales*>(sm.right + kRowStagingFloats);
}

// One thread's column of the mid-referenced factors: block threadIdx.x / 128, channel
// threadIdx.x % 128, in registers until the whole CTA has agreed on the path.
struct MidColumn {
  float left_q[kBlock], left_b[kBlock], right[kBlock];
  float lo, hi;  // MidScales::lo, ::hi of this block and channel
  bool ok;       // this column meets the path's rule (kMidMinDecay, kMidMaxFactor)
};

// 1 / r by the hardware's approximation (rcp.approx.ftz: one MUFU instruction, within 1 ulp,
// well below the TF32 rounding that follows), not __frcp_rn: its slow-path branch per call kept
// ptxas from interleaving the 16 reciprocals of a column. Exact enough wherever the path is taken:
// there every r is a product of decays of at least kMidMinDecay (a normal float); a smaller r
// (flushed to 0 if subnormal, giving inf) belongs to a column whose rule fails.
__device__ __forceinline__ float mid_reciprocal(float r) {
  float inv;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(inv) : "f"(r));
  return inv;
}

__device__ __forceinline__ MidColumn mid_column(const Smem& sm) {
  const int row0 = threadIdx.x / kK * kBlock, c = threadIdx.x % kK;
  float d[kBlock];
  MidColumn f;
  load_column(sm.d, row0, c, d);
  load_column(sm.q, row0, c, f.left_q);
  load_column(sm.bk, row0, c, f.left_b);
  load_column(sm.k, row0, c, f.right);
  float biggest = 0.f;
  float r = 1.f;  // P(row0 + i, p)
#pragma unroll
  for (int i = kMidRow; i >= 0; --i) {
    const float inv = mid_reciprocal(r);
    f.left_q[i] *= inv;
    f.left_b[i] *= inv;
    f.right[i] *= r;
    biggest = fmaxf(biggest, fmaxf(fabsf(f.left_q[i]), fabsf(f.left_b[i])));
    if (i > 0) r *= d[i];
  }
  const float first = r;  // P(row0, p): the largest factor scaled up on the left is 1 / first
  f.lo = r * d[0];
  r = 1.f;  // P(p, row0 + i)
#pragma unroll
  for (int i = kMidRow + 1; i < kBlock; ++i) {
    r *= d[i];
    f.left_q[i] *= r;
    f.left_b[i] *= r;
    f.right[i] *= mid_reciprocal(r);
    biggest = fmaxf(biggest, fabsf(f.right[i]));
  }
  f.hi = r;
  // r is never NaN (d is not). A NaN in q, b or k is dropped by fmaxf and may pass; it then spreads
  // through A and M as it does on the exact path. An infinite one fails the bound.
  f.ok = first >= kMidMinDecay && r >= kMidMinDecay && biggest <= kMidMaxFactor;
  return f;
}

// This block's decays for the scales (mid_pair_scales reads them after the path's vote).
__device__ __forceinline__ void store_mid_decays(const MidColumn& f, Smem& sm) {
  int at = threadIdx.x;  // block threadIdx.x / kK, channel threadIdx.x % kK
  asm volatile("" : "+r"(at));  // as in store_square: not worth a register held across items
  MidScales& s = mid_scales(sm);
  (&s.lo[0][0])[at] = f.lo;
  (&s.hi[0][0])[at] = f.hi;
}

// The factors in place of q, b*k and k (rounded to TF32).
__device__ __forceinline__ void store_mid_column(const MidColumn& f, Smem& sm) {
  const int blk = threadIdx.x / kK, c = threadIdx.x % kK;
#pragma unroll
  for (int i = 0; i < kBlock; ++i) {
    const int at = (blk * kBlock + i) * kLd + c;
    sm.q[at] = round_tf32(f.left_q[i]);
    sm.bk[at] = round_tf32(f.left_b[i]);
    sm.k[at] = round_tf32(f.right[i]);
  }
}

// c_IJ = P(p_J, p_I) = hi_J (lo_K hi_K for J < K < I) lo_I, one channel per thread (threads 0..127).
// Stored in fragment order: channel 8 s + t + 4 e at position 8 s + 2 t + e, so that a B fragment's
// two scales (channels 8 s + t and 8 s + t + 4) are one 8-byte load.
__device__ __forceinline__ void mid_pair_scales(Smem& sm) {
  const int c = threadIdx.x;
  if (c >= kK) return;
  MidScales& s = mid_scales(sm);
  const int pos = (c & ~7) | ((c & 3) << 1) | ((c >> 2) & 1);
  for (int I = 1; I < kC / kBlock; ++I) {
    float x = s.lo[I][c];  // P(16 I - 1, p_I), then extended back to each p_J
    for (int J = I - 1; J >= 0; --J) {
      s.pair[I * (I - 1) / 2 + J][pos] = x * s.hi[J][c];
      x *= s.hi[J][c] * s.lo[J][c];
    }
  }
}

// Block (I, J) of A, of M or of both over all channels, into one warp's fragments (mid_products
// gives the blocks to warps). kWhich: 1 = A only (left factor Left_b), 2 = M only (Left_q), 3 = both.
template <int kWhich, bool kScaled>
__device__ __forceinline__ void mid_block_product(const Smem& sm, int I, int J, const float* scale,
                                                  float (&a)[2][4], float (&m)[2][4]) {
  const int lane = threadIdx.x % 32, t = lane & 3;
  const int a_row = kBlock * I + (lane & 7) + ((lane >> 3) & 1) * 8, a_col = (lane >> 4) * 4;
  const int b_row = kBlock * J + (lane >> 4) * 8 + (lane & 7), b_col = ((lane >> 3) & 1) * 4;
  const float* lb = sm.bk + a_row * kLd + a_col;
  const float* lq = sm.q + a_row * kLd + a_col;
  const float* rk = sm.k + b_row * kLd + b_col;
#pragma unroll 4
  for (int s = 0; s < kK / 8; ++s) {
    uint32_t fb[4], fq[4], r[4];  // r: b0, b1 of columns 0..7, then of columns 8..15
    if (kWhich & 1) ldmatrix_x4(fb, lb + 8 * s);
    if (kWhich & 2) ldmatrix_x4(fq, lq + 8 * s);
    ldmatrix_x4(r, rk + 8 * s);
    if (kScaled) {
      const float2 sc = *reinterpret_cast<const float2*>(scale + 8 * s + 2 * t);
      r[0] = to_tf32(__uint_as_float(r[0]) * sc.x);
      r[1] = to_tf32(__uint_as_float(r[1]) * sc.y);
      r[2] = to_tf32(__uint_as_float(r[2]) * sc.x);
      r[3] = to_tf32(__uint_as_float(r[3]) * sc.y);
    }
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
      if (kWhich & 1) mma_tf32_frag(a[nt], fb, r[2 * nt], r[2 * nt + 1]);
      if (kWhich & 2) mma_tf32_frag(m[nt], fq, r[2 * nt], r[2 * nt + 1]);
    }
  }
}

// One warp's share of A and M, stored as 16 x 16 blocks (none summed across warps); the diagonal
// blocks are masked to the lower triangle (strictly for A).
//   kPairWarps = kBlockPairs (no pass alongside): 10 warps, each one block of both matrices (the
//     six pairs, then the four diagonal blocks), so that each pair's Left_b, Left_q and Right are
//     read once: 240 KB of operand reads, against 288 KB for the split below. The stage is bound by
//     those reads (it took 19% fewer cycles, docs/performance.md).
//   kPairWarps = 2 kBlockPairs (a pass alongside, kPublish): 16 warps, each pair's A and M on two
//     warps, then the diagonal blocks. The faster stage made the rows with a pass alongside up to
//     1.5% slower: there phase 1 and the pass bound the call together, and a faster phase 1 only
//     adds its traffic beside the pass sooner.
template <int kPairWarps>
__device__ void mid_products(Smem& sm) {
  static_assert(kPairWarps == kBlockPairs || kPairWarps == 2 * kBlockPairs, "one or two warps per pair");
  constexpr int kPerPair = kPairWarps / kBlockPairs;
  int warp = threadIdx.x / 32;
  if constexpr (kPerPair == 1) {
    asm volatile("" : "+r"(warp));  // recomputed here, not a register held across items (else 4 bytes spilled)
    if (warp >= kPairWarps + kC / kBlock) return;
  }
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const MidScales& sc = mid_scales(sm);
  float a[2][4] = {}, m[2][4] = {};
  int I, J;
  const bool off_diagonal = warp < kPairWarps;
  const bool is_m = kPerPair == 2 && warp % 2 == 1;  // two warps per pair: which matrix
  if (off_diagonal) {
    const int pair = warp / kPerPair;
    I = pair < 1 ? 1 : pair < 3 ? 2 : 3;  // pairs (1,0) (2,0) (2,1) (3,0) (3,1) (3,2)
    J = pair - I * (I - 1) / 2;
    if (kPerPair == 1) mid_block_product<3, true>(sm, I, J, sc.pair[pair], a, m);
    else if (is_m) mid_block_product<2, true>(sm, I, J, sc.pair[pair], a, m);
    else mid_block_product<1, true>(sm, I, J, sc.pair[pair], a, m);
  } else {
    I = J = warp - kPairWarps;
    mid_block_product<3, false>(sm, I, J, nullptr, a, m);
  }
#pragma unroll
  for (int nt = 0; nt < 2; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int r = g + 8 * (e >> 1), cc = 8 * nt + 2 * t + (e & 1);  // within the 16 x 16 block
      const int at = (kBlock * I + r) * kLdC + kBlock * J + cc;
      if (off_diagonal && kPerPair == 2) {
        if (is_m) sm.M[at] = m[nt][e];
        else sm.A[at] = a[nt][e];
      } else {
        sm.A[at] = off_diagonal || r > cc ? a[nt][e] : 0.f;  // a select, never a multiply by zero
        sm.M[at] = off_diagonal || r >= cc ? m[nt][e] : 0.f;
      }
    }
}

// Diagonal 16x16 blocks of A and M: column j carries the running product P(j, i) down its block.
// Eight lanes per (block, column); lane `sub` holds channels 32 r + 4 sub .. + 3 (r = 0..3), read as
// float4. The four columns of a warp sit in one block, so all lanes read the same row at each step
// (eight consecutive float4 per quarter warp: no bank conflicts), and rows above the warp's first
// column are skipped. The rows in two halves of 8, each reduced before the next is summed: 16
// partial sums per lane at a time (all 32 at once were the kernel's peak of live registers).
__device__ void diagonal_blocks(Smem& sm) {
  constexpr int kLanes = 8, kVecs = kK / (4 * kLanes), kHalf = kBlock / 2;
  const int pair = threadIdx.x / kLanes, sub = threadIdx.x % kLanes;
  const int blk = pair / kBlock, j = pair % kBlock;
  const int col = blk * kBlock + j;
  const int i_begin = j & ~(32 / kLanes - 1);  // the warp's first column: rows above it are skipped
  float4 x[kVecs];
#pragma unroll
  for (int r = 0; r < kVecs; ++r) x[r] = *reinterpret_cast<const float4*>(sm.k + col * kLd + 32 * r + 4 * sub);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    // This lane's partial sums: v[i] of A(8 half + i, col), v[8 + i] of M(8 half + i, col).
    float v[2 * kHalf];
#pragma unroll
    for (int ii = 0; ii < kHalf; ++ii) {
      const int i = kHalf * half + ii;
      v[ii] = v[kHalf + ii] = 0.f;
      if (i < i_begin) continue;
      const int row = blk * kBlock + i;
      const float* d = sm.d + row * kLd + 4 * sub;
      const float* bk = sm.bk + row * kLd + 4 * sub;
      const float* q = sm.q + row * kLd + 4 * sub;
#pragma unroll
      for (int r = 0; r < kVecs; ++r) {
        if (i > j) {
          const float4 dv = *reinterpret_cast<const float4*>(d + 32 * r);
          x[r].x *= dv.x;
          x[r].y *= dv.y;
          x[r].z *= dv.z;
          x[r].w *= dv.w;
        }
        const float4 bv = *reinterpret_cast<const float4*>(bk + 32 * r);
        const float4 qv = *reinterpret_cast<const float4*>(q + 32 * r);
        v[ii] += bv.x * x[r].x + bv.y * x[r].y + bv.z * x[r].z + bv.w * x[r].w;
        v[kHalf + ii] += qv.x * x[r].x + qv.y * x[r].y + qv.z * x[r].z + qv.w * x[r].w;
      }
    }
    // Reduce-scatter over the 8 lanes of the column (lane bits b2 b1 b0): at each level a lane keeps
    // half of its values, receives its partner's partial sums of that half and sends the other half.
    // Afterwards lane (b2, b1, b0) holds the full sums of matrix b2 (A, M), rows 8 half + 4 b1 + 2 b0
    // + 0..1.
    const bool b2 = sub & 4, b1 = sub & 2, b0 = sub & 1;
    float w8[kHalf], w4[kHalf / 2], w2[kHalf / 4];
#pragma unroll
    for (int k = 0; k < kHalf; ++k)
      w8[k] = (b2 ? v[kHalf + k] : v[k]) + __shfl_xor_sync(0xffffffffu, b2 ? v[k] : v[kHalf + k], 4);
#pragma unroll
    for (int k = 0; k < kHalf / 2; ++k)
      w4[k] = (b1 ? w8[4 + k] : w8[k]) + __shfl_xor_sync(0xffffffffu, b1 ? w8[k] : w8[4 + k], 2);
#pragma unroll
    for (int k = 0; k < kHalf / 4; ++k)
      w2[k] = (b0 ? w4[2 + k] : w4[k]) + __shfl_xor_sync(0xffffffffu, b0 ? w4[k] : w4[2 + k], 1);
#pragma unroll
    for (int k = 0; k < kHalf / 4; ++k) {
      const int i = kHalf * half + 4 * b1 + 2 * b0 + k, row = blk * kBlock + i;
      if (b2) sm.M[row * kLdC + col] = i >= j ? w2[k] : 0.f;
      else sm.A[row * kLdC + col] = i > j ? w2[k] : 0.f;  // A is strictly lower
    }
  }
}

// Rows of block I >= 1 take their left factor P(p, i), p = 16 I - 1: threads 128 I .. 128 I + 127,
// one channel each, all three blocks at once, while threads 0..127 build the first right factor.
__device__ void left_factors(Smem& sm, int I) {
  static_assert(kThreads / kK == kC / kBlock, "one group of 128 threads per 16-row block");
  const int c = threadIdx.x % kK;
  float dv[kBlock], qv[kBlock], bv[kBlock];
  load_column(sm.d, I * kBlock, c, dv);
  load_column(sm.q, I * kBlock, c, qv);
  load_column(sm.bk, I * kBlock, c, bv);
  float r = 1.f;
#pragma unroll
  for (int i = 0; i < kBlock; ++i) {
    const int row = I * kBlock + i;
    r *= dv[i];
    sm.q[row * kLd + c] = round_tf32(qv[i] * r);  // rounded once here, not at every read
    sm.bk[row * kLd + c] = round_tf32(bv[i] * r);
  }
}

// Right_j = k_j P(j, p) for j <= p = 16 I - 1 (threads 0..127, one channel each), rounded to TF32:
// one backward pass from p, 16 rows at a time.
__device__ void right_factors(Smem& sm, int I) {
  const int c = threadIdx.x;
  float r = 1.f;
  for (int blk = I - 1; blk >= 0; --blk) {
    float kv[kBlock], dv[kBlock];
    load_column(sm.k, blk * kBlock, c, kv);
    load_column(sm.d, blk * kBlock, c, dv);
#pragma unroll
    for (int i = kBlock - 1; i >= 0; --i) {
      sm.right[(blk * kBlock + i) * kLd + c] = round_tf32(kv[i] * r);
      r *= dv[i];
    }
  }
}

// Block row I of A and M left of the diagonal: Left (16 x K) times Right^T (K x 16 I) on tensor cores.
__device__ void off_diagonal_blocks(Smem& sm) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  for (int I = 1; I < kC / kBlock; ++I) {
    const int cols = I * kBlock;
    if (threadIdx.x < kK) right_factors(sm, I);
    else if (I == 1) left_factors(sm, threadIdx.x / kK);
    factor_sync();
    const int ntiles = cols / 8;
    for (int tile = warp; tile < 2 * ntiles; tile += kThreads / 32) {
      const bool is_m = tile >= ntiles;
      const int nt = tile % ntiles;
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      // A(r, c) = Left[16 I + r][c];  B(c, n) = Right[8 nt + n][c]
      mma_tf32(acc, (is_m ? sm.q : sm.bk) + I * kBlock * kLd, kLd, 1, sm.right + nt * 8 * kLd, 1, kLd,
               kK / 8, lane);
      float* dst = (is_m ? sm.M : sm.A) + I * kBlock * kLdC + nt * 8;
      dst[g * kLdC + 2 * t] = acc[0];
      dst[g * kLdC + 2 * t + 1] = acc[1];
      dst[(g + 8) * kLdC + 2 * t] = acc[2];
      dst[(g + 8) * kLdC + 2 * t + 1] = acc[3];
    }
    factor_sync();
  }
}

// Blocks T_IJ with I - J = kDist (invert_off_diagonal_blocks), then the solver's barrier. `st`: the
// solver thread.
template <int kDist>
__device__ __forceinline__ void invert_block_diagonal(const float* A, float* T, float* scratch, int st) {
  const int lane = st % 32, g = lane >> 2, t = lane & 3;
  // block (I, J = I - kDist), columns 8 nt .. 8 nt + 7, per task; the solver's four warps take turns
  for (int task = st / 32; task < 2 * (kC / kBlock - kDist); task += kSolverThreads / 32) {
    const int J = task / 2, I = J + kDist, nt = task % 2;
    float x[4] = {0.f, 0.f, 0.f, 0.f};
    mma_tf32x3<2 * kDist>(x, A + kBlock * I * kLdC + kBlock * J, kLdC, T + kBlock * J * kLdC + kBlock * J + 8 * nt,
                          kLdC, lane);
    float* xs = scratch + task * kBlock * 8;  // X as a [16][8] tile
    xs[g * 8 + 2 * t] = x[0];
    xs[g * 8 + 2 * t + 1] = x[1];
    xs[(g + 8) * 8 + 2 * t] = x[2];
    xs[(g + 8) * 8 + 2 * t + 1] = x[3];
    __syncwarp();
    float y[4] = {0.f, 0.f, 0.f, 0.f};
    mma_tf32x3<2>(y, T + kBlock * I * kLdC + kBlock * I, kLdC, xs, 8, lane);
    float* dst = T + (kBlock * I + g) * kLdC + kBlock * J + 8 * nt + 2 * t;
    dst[0] = -y[0];
    dst[1] = -y[1];
    dst[8 * kLdC] = -y[2];
    dst[8 * kLdC + 1] = -y[3];
  }
  solver_sync();
}

// T or M (lower triangular) into its slot of the chunk's factor block as a TF32 factor operand
// (kernel_params.h, factor_offset), by `threads` threads numbered from `first`, one 16-byte vector
// (row r, k positions p .. p + 3) per thread and step. Only the 16 x 16 blocks on or below the
// diagonal of `src` are read (the others were never written). Two formats (factor_block):
// the full [64][64] layout, its blocks above the diagonal written as zeros (store_square), or the
// packed one, only each row group's core matrices up to the diagonal (store_triangle).
__device__ __forceinline__ float4 square_vector(const float* src, int r, int p) {
  const float* x = src + r * kLdC;  // positions p .. p + 3 hold columns of one 8-column group
  return make_float4(round_tf32(x[k_at_position(p)]), round_tf32(x[k_at_position(p + 1)]),
                     round_tf32(x[k_at_position(p + 2)]), round_tf32(x[k_at_position(p + 3)]));
}
__device__ void store_square(const float* src, float* dst, int first, int threads) {
  asm volatile("" : "+r"(first));  // its addresses are cheap: not worth a register held across items
  for (int v = first; v < kC * kC / 4; v += threads) {
    const int r = (v / 128) * 8 + v % 8, p = 4 * ((v / 8) % (kC / 4));
    reinterpret_cast<float4*>(dst)[v] = p / kBlock <= r / kBlock ? square_vector(src, r, p) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
}
__device__ void store_triangle(const float* src, float* dst, int first, int threads) {
  asm volatile("" : "+r"(first));  // as in store_square
  for (int v = first; v < factor_block::kTriangleFloats / 4; v += threads) {
    int rg = 0;  // the row group: vector v lies in [offset(rg), offset(rg + 1)) / 4
#pragma unroll
    for (int g = 1; g < factor_block::kRowGroups; ++g) rg += v >= factor_block::triangle_group_offset(g) / 4;
    const int local = v - factor_block::triangle_group_offset(rg) / 4;  // core matrix local / 8, row local % 8
    reinterpret_cast<float4*>(dst)[v] = square_vector(src, 8 * rg + local % 8, 4 * (local / 8));
  }
}
__device__ __forceinline__ void store_lower(const float* src, float* dst, int first, int threads, bool packed) {
  if (packed) store_triangle(src, dst, first, threads);
  else store_square(src, dst, first, threads);
}

// T = (I + A)^{-1}, blockwise (docs/algorithm.md, "The inverse"), by the solver warpgroup, in two
// steps. First the four diagonal 16x16 blocks at once, one column per thread (solver threads
// st = 0..63) by forward substitution in fp32: t_jj = 1, t_ij = -sum_{m=j}^{i-1} A_im t_mj.
__device__ void invert_diagonal_blocks(const float* A, float* T, int st) {
  const int base = st / kBlock * kBlock, j = st % kBlock;
  float t[kBlock];
#pragma unroll
  for (int m = 0; m < kBlock; ++m) t[m] = m == j ? 1.f : 0.f;
#pragma unroll
  for (int i = 1; i < kBlock; ++i) {
    const float* a = A + (base + i) * kLdC + base;
    float s = 0.f;
#pragma unroll
    for (int m = 0; m < i; ++m) s += a[m] * t[m];  // t[m] = 0 for m < j; t[i - 1] enters last
    if (i > j) t[i] = -s;
  }
#pragma unroll
  for (int m = 0; m < kBlock; ++m) T[(base + m) * kLdC + base + j] = t[m];
}

// Then the blocks below the diagonal, one block diagonal at a time, on tensor cores:
//   T_IJ = -T_II X_IJ,   X_IJ = sum_{M = J}^{I-1} A_IM T_MJ   (every T_MJ is already known),
// one warp per 16 x 8 half of a block, in 3xTF32 (fp32 accuracy); `scratch` holds each half's X.
// Ends with the solver's barrier.
__device__ void invert_off_diagonal_blocks(const float* A, float* T, float* scratch, int st) {
  invert_block_diagonal<1>(A, T, scratch, st);
  invert_block_diagonal<2>(A, T, scratch, st);
  invert_block_diagonal<3>(A, T, scratch, st);
}

// Item n of this CTA on the static schedule (ChunkFactorsParams::steady_ctas), from its item n - 2
// (`before`; the prologue's is blockIdx.x - gridDim.x): item 0 is blockIdx.x; after it only the
// first steady_ctas CTAs go on, item n being gridDim.x + blockIdx.x + (n - 1) steady_ctas; the
// others end (`items`).
__device__ __forceinline__ int64_t static_item(const ChunkFactorsParams& p, int64_t before, int n) {
  const int64_t grid = gridDim.x, steady = p.steady_ctas;
  if (n >= 1 && int(blockIdx.x) >= p.steady_ctas) return p.slots * p.Hq;
  return before + (n <= 1 ? 2 * grid : n == 2 ? grid + steady : 2 * steady);
}

// The schedule of a CTA's items (ChunkFactorsParams::work_counter). One thread records the CTA's
// item n in entry n % 2 of Smem::ahead, during item n - 1 (dynamic) or n - 2 (static); the others
// read it after the next factor barrier.
//   With a work counter: it claims the next free item (items below gridDim.x are the CTAs' first
//   ones), so that CTAs whose items end early take more of them.
//   Static: static_item, known one item earlier (or by the prologue), so that its rows can be
//   prefetched from the start of item n - 1.
// `item`, `ordinal`: the CTA's item during which this runs and its index (the prologue: -1).
__device__ void advance_schedule(const ChunkFactorsParams& p, Smem& sm, int64_t item, int ordinal) {
  const bool dynamic = p.work_counter != nullptr;
  const int n = ordinal + (dynamic ? 1 : 2);
  const int64_t next = dynamic ? int64_t(atomicAdd(reinterpret_cast<unsigned long long*>(p.work_counter), 1ull)) + gridDim.x
                               : static_item(p, item, n);
  const Chunk ch = next < p.slots * p.Hq ? chunk_of_slot(p.seq, next / p.Hq) : Chunk{0, 0, false};
  auto& e = sm.ahead[n % 2];
  e.item = next;
  e.t0 = ch.t0;
  e.len = ch.len;
  e.valid = ch.valid;
}
// The prologue's part of the static schedule: the CTA's second item.
__device__ void start_schedule(const ChunkFactorsParams& p, Smem& sm) {
  if (p.work_counter == nullptr) advance_schedule(p, sm, int64_t(blockIdx.x) - gridDim.x, -1);
}
// The CTA's next item after its n-th (valid from stage 2 of item n on).
__device__ __forceinline__ int64_t next_item(const Smem& sm, int ordinal) { return sm.ahead[(ordinal + 1) % 2].item; }
__device__ __forceinline__ Chunk next_chunk(const Smem& sm, int ordinal) {
  const auto& e = sm.ahead[(ordinal + 1) % 2];
  return {e.t0, e.len, e.valid != 0};
}

// Item `item` (the CTA's `ordinal`-th) on the factor warps, from its staged inputs: its decayed
// rows and gamma into its factor block, then A and M, handed to the solver (Smem::full) once the
// solver has finished with the previous item's (Smem::empty). The next item's inputs are fetched
// into `next` while the products are formed.
// `handed`: the items handed over before this one.
template <bool kPublish>
__device__ void chunk_factors(Smem& sm, float* block, int64_t flag, const ChunkFactorsParams& p,
                              const TensorMap& g_map, int64_t item, ChunkInputs& next, int handed,
                              [[maybe_unused]] int ordinal) {
  // The threads that store_decayed_rows leaves idle (role 3): on the static schedule they send the
  // next item's rows to L2 (on the dynamic one it is not known yet), and one of them advances the
  // schedule.
  if (threadIdx.x >= kThreads - kK) {
    if (p.work_counter == nullptr) {
      const int64_t next = next_item(sm, ordinal);
      prefetch_chunk(p, int(next % p.Hq), next_chunk(sm, ordinal), threadIdx.x - (kThreads - kK));
    }
    if (threadIdx.x == kThreads - kK) advance_schedule(p, sm, item, ordinal);
  }
  store_decayed_rows(block, sm);
  // A and M: on tensor cores from mid-block references when every factor is in range (the factor
  // warps agree, and the barrier also ends store_decayed_rows' reads), else the exact path.
  const MidColumn mid = mid_column(sm);
  store_mid_decays(mid, sm);
  const bool mid_path = factor_sync_and(mid.ok);
  GDN2_TIMELINE_MARK(2, ordinal);
  // Unconditional (no loads for an invalid chunk), so that the old inputs are dead from stage_chunk on.
  // Both after a factor barrier that ends every read of `d` (the vote, or the exact path's products).
  const auto fetch_next = [&] {
    const int hk = int(next_item(sm, ordinal) % p.Hq);
    const Chunk ch = next_chunk(sm, ordinal);
    if (threadIdx.x == 0) fetch_g(g_map, sm, hk, ch);
    next = fetch_chunk(p, hk, ch);
  };
  if (mid_path) {
    store_mid_column(mid, sm);
    mid_pair_scales(sm);  // from every block's decays, stored before the vote
    factor_sync();
    fetch_next();  // lands during the products
    GDN2_TIMELINE_MARK(3, ordinal);
    mbarrier_wait(&sm.empty, uint32_t(handed) & 1u);  // the solver is done with the previous A and M
    GDN2_TIMELINE_MARK(4, ordinal);
    mid_products<kPublish ? 2 * kBlockPairs : kBlockPairs>(sm);
  } else {
    GDN2_TIMELINE_MARK(3, ordinal);
    mbarrier_wait(&sm.empty, uint32_t(handed) & 1u);
    GDN2_TIMELINE_MARK(4, ordinal);
    diagonal_blocks(sm);
    factor_sync();            // raw q and b*k are no longer needed: Left factors overwrite them
    off_diagonal_blocks(sm);  // ends with a barrier
    fetch_next();             // after the products: this path holds more registers
  }
  if (threadIdx.x == 0) sm.job = {block, flag, 0};
  mbarrier_arrive(&sm.full);  // release: this thread's A, M and row stores precede the solver's reads
  GDN2_TIMELINE_MARK(5, ordinal);
}

// The solver warpgroup: for each item the factor warps hand over, T = (I + A)^{-1}, then T and M
// into the factor block, and (kPublish) its ready flag once the whole block is stored.
template <bool kPublish>
__device__ void solve_items(const ChunkFactorsParams& p, Smem& sm) {
  const int st = int(threadIdx.x) - kThreads;
  mbarrier_arrive(&sm.empty);  // A and M are free for the first item
  int solved = 0;  // items solved so far (the timeline's index)
  for (uint32_t parity = 0;; parity ^= 1u) {
    mbarrier_wait(&sm.full, parity);
    GDN2_SOLVER_TIMELINE_MARK(0, solved);
    float* const block = sm.job.block;
    const int64_t flag = sm.job.flag;
    if (sm.job.done) break;
    // Solver threads 0..63 solve the diagonal blocks while 64..127 store M.
    if (st < kC) invert_diagonal_blocks(sm.A, sm.T, st);
    else store_lower(sm.M, block + factor_block::kM, st - kC, kSolverThreads - kC, p.packed_triangles);
    solver_sync();
    GDN2_SOLVER_TIMELINE_MARK(1, solved);
    invert_off_diagonal_blocks(sm.A, sm.T, sm.scratch, st);
    GDN2_SOLVER_TIMELINE_MARK(2, solved);
    // A, M and sm.job are read. Without a pass alongside, the factor warps may now form the next
    // item's A and M while T is stored: phase 1's throughput is what counts there. With one
    // (kPublish), the pass waits for each block's flag, and T's stores contending with the next
    // item's products delayed the flags more than the shorter wait gained (docs/performance.md),
    // so A and M are released after the flag.
    if constexpr (!kPublish) mbarrier_arrive(&sm.empty);
    store_lower(sm.T, block + factor_block::kT, st, kSolverThreads, p.packed_triangles);
    GDN2_SOLVER_TIMELINE_MARK(3, solved);
    // Every solver thread's reads of T end before the next item's inverse rewrites it (without
    // kPublish the hand-over no longer orders them), and with kPublish the solver's stores of the
    // block precede the flag (the factor warps' preceded their arrivals on `full`).
    solver_sync();
    if constexpr (kPublish) {
      if (st == 0 && flag >= 0) store_flag_release(p.ready + flag, 1);
    }
    GDN2_SOLVER_TIMELINE_MARK(4, solved);
    if constexpr (kPublish) mbarrier_arrive(&sm.empty);
    ++solved;
  }
#ifdef GDN2_PHASE1_TIMELINE
  if (st == 0 && blockIdx.x < kTimelineCtas) g_solver_items[blockIdx.x] = solved;
#endif
}

// The sequences longest first, for a state pass of several waves (ChunkFactorsParams::order):
// sequence i's rank is the number of sequences with more chunks, or as many and a smaller index, so
// the ranks are a permutation of 0 .. N - 1 whatever cu_seqlens holds (seq_bounds clamps). Each
// solver warp ranks its own sequences (the CTA's, warp w's of every four), before the CTA's first
// item reaches the solver: N^2 / (4 x 32 x grid) bound pairs per lane (launch.cu caps N).
__device__ void order_sequences(const ChunkFactorsParams& p) {
  const int warp = (int(threadIdx.x) - kThreads) / 32, lane = threadIdx.x % 32;
  const auto chunks = [&](int s) { return chunk_count(seq_bounds(p.seq, s)); };
  for (int i = blockIdx.x + gridDim.x * warp; i < p.seq.N; i += gridDim.x * (kSolverThreads / 32)) {
    const int64_t ci = chunks(i);
    int ahead = 0;
    for (int j = lane; j < p.seq.N; j += 32) {
      const int64_t cj = chunks(j);
      ahead += cj > ci || (cj == ci && j < i) ? 1 : 0;
    }
    ahead = __reduce_add_sync(0xffffffffu, ahead);
    if (lane == 0) p.order[ahead] = i;
  }
}

// Persistent CTAs (one per SM at most) take (chunk slot, key head) items, head fastest: first
// item blockIdx.x, then the next ones (advance_schedule); each item's inputs are loaded into
// registers while the previous item is finished (and on the static schedule sent to L2 before).
// kPublish: a state pass runs alongside (p.ready is set), so each factor block is published. A
// separate instantiation: compiled in as a run-time branch, the publication changed the schedule
// of the whole kernel (docs/performance.md, 69f31c9).
template <bool kPublish>
__global__ void __launch_bounds__(kCtaThreads, 1)
    chunk_factors_kernel(const ChunkFactorsParams p, const __grid_constant__ TensorMap g_map) {
  extern __shared__ float4 smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(smem_raw);
  // The 32-channel state pass (launched behind this grid: launch_after_prior_grid) may start its
  // prologue on the SMs this grid leaves free, or frees: every CTA of this grid is resident once
  // all have passed here, so phase 2's CTAs never hold an SM it waits for.
  allow_dependent_launch();
  // kAuto's choice on the device (kernel_params.h): this path is the longer one, launched behind
  // the shorter one, which zeroes the work counter; past the wait, that kernel has completed.
  if (!path_is_chosen<kCtaThreads>(p.seq)) {  // another path runs
    leave_unchosen_path();
    // The state pass, launched behind this grid, reads this word once it has completed.
    if (blockIdx.x == 0 && threadIdx.x == 0) p.fault_words[0] = kPhase1Skipped;
    return;
  }
  if (p.seq.choice != kAlwaysRuns) wait_for_prior_grid();
  GDN2_TIMELINE_START();
  if (threadIdx.x == 0) {
    mbarrier_init(&sm.full, kThreads);
    mbarrier_init(&sm.empty, kSolverThreads);
    mbarrier_init(&sm.g_full, 1);
    fence_barrier_init();
    sm.bad_offsets = 0;
  }
  __syncthreads();
  if (threadIdx.x >= kThreads) {
    if (p.order != nullptr) order_sequences(p);
    solve_items<kPublish>(p, sm);
    return;
  }
  const int64_t items = p.slots * p.Hq;
  int64_t item = blockIdx.x;
  Chunk chunk = chunk_of_slot(p.seq, item / p.Hq);
  if (threadIdx.x == 0) fetch_g(g_map, sm, int(item % p.Hq), chunk);
  ChunkInputs in = fetch_chunk(p, int(item % p.Hq), chunk);
  if (threadIdx.x == kThreads - kK) start_schedule(p, sm);
  int ordinal = 0;  // items taken by this CTA so far (the timeline's index)
  int handed = 0;   // of those, the valid ones: handed to the solver
  while (item < items) {
    GDN2_TIMELINE_MARK(0, ordinal);
    const int64_t slot = item / p.Hq;
    const int hk = int(item % p.Hq);
    // The contract on cu_seqlens, one offset per item of head 0 (there are at least N + 1 slots):
    // a violation makes phase 2 write NaN everywhere instead of reading factors that no chunk computed.
    if (hk == 0 && slot <= p.seq.N && threadIdx.x == 0) sm.bad_offsets |= offset_is_inconsistent(p.seq, slot) ? 1 : 0;
    if (chunk.valid) {  // uniform across the CTA
      stage_chunk(in, sm, chunk.len, uint32_t(handed));
      factor_sync();
      GDN2_TIMELINE_MARK(1, ordinal);
      const int64_t flag = kPublish ? int64_t(hk) * p.slots + slot : -1;
      chunk_factors<kPublish>(sm, p.factors + (int64_t(hk) * p.slots + slot) * factor_block::kFloats, flag, p, g_map, item, in,
                    handed, ordinal);
      ++handed;
    } else {
      if (threadIdx.x == kThreads - kK) advance_schedule(p, sm, item, ordinal);
      factor_sync();
      const int next_hk = int(next_item(sm, ordinal) % p.Hq);
      const Chunk next = next_chunk(sm, ordinal);
      if (threadIdx.x == 0) fetch_g(g_map, sm, next_hk, next);
      in = fetch_chunk(p, next_hk, next);
    }
    item = next_item(sm, ordinal);
    chunk = next_chunk(sm, ordinal);
    factor_sync();  // sm.ahead and the staged chunk are rewritten in the next iteration
    GDN2_TIMELINE_MARK(6, ordinal);
    ++ordinal;
  }
  // The end of the CTA's items, handed over like an item.
  mbarrier_wait(&sm.empty, uint32_t(handed) & 1u);
  if (threadIdx.x == 0) sm.job = {nullptr, -1, 1};
  mbarrier_arrive(&sm.full);
  if (threadIdx.x == 0) p.fault_words[blockIdx.x] = sm.bad_offsets != 0 ? 1 : 0;
#ifdef GDN2_PHASE1_TIMELINE
  if (threadIdx.x == 0 && blockIdx.x < kTimelineCtas) {
    g_timeline_items[blockIdx.x] = ordinal;
    g_end_ns[blockIdx.x] = global_timer_ns();
  }
#endif
}

}  // namespace

#ifdef GDN2_PHASE1_TIMELINE
int read_phase1_timeline(long long* starts, long long* marks, int* items, long long* solver_marks, int* solver_items) {
  cudaError_t e = cudaMemcpyFromSymbol(starts, g_timeline_start, sizeof(g_timeline_start));
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(marks, g_timeline, sizeof(g_timeline));
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(items, g_timeline_items, sizeof(g_timeline_items));
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(solver_marks, g_solver_timeline, sizeof(g_solver_timeline));
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(solver_items, g_solver_items, sizeof(g_solver_items));
  return int(e);
}
int read_phase1_end_ns(long long* end_ns) { return int(cudaMemcpyFromSymbol(end_ns, g_end_ns, sizeof(g_end_ns))); }
int reset_phase1_timeline() {
  static const int zeros[kTimelineCtas] = {};
  cudaError_t e = cudaMemcpyToSymbol(g_timeline_items, zeros, sizeof(zeros));
  if (e == cudaSuccess) e = cudaMemcpyToSymbol(g_solver_items, zeros, sizeof(zeros));
  return int(e);
}
#endif

namespace {
template <bool kPublish>
int launch_chunk_factors_variant(const ChunkFactorsParams& p, Stream stream) {
  const int smem = int(sizeof(Smem));
  static std::atomic<uint64_t> smem_set{0};
  const int err = allow_dynamic_smem(chunk_factors_kernel<kPublish>, smem, smem_set);
  if (err != 0) return err;
  TensorMap g_map;
  const cuuint64_t dims[3] = {cuuint64_t(kK), cuuint64_t(p.Hq), cuuint64_t(p.seq.T)};
  const cuuint64_t strides[2] = {kK * sizeof(float), cuuint64_t(p.Hq) * kK * sizeof(float)};
  const cuuint32_t box[3] = {kLd, 1, kC};  // fetch_g: the padding of d's rows lies past K, so it lands as zeros
  static_assert(sizeof(Smem::d) == kLd * kC * sizeof(float), "one box fills the decay tile");
  const int map_err = encode_tiled_map(&g_map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, p.g, dims, strides, box,
                                       CU_TENSOR_MAP_SWIZZLE_NONE);
  if (map_err != 0) return map_err;
  const int64_t items = p.slots * p.Hq;
  const dim3 grid(unsigned(phase1_ctas(items, p.ctas)));
  // The static schedule hands every item after the first round to CTAs below steady_ctas.
  if (p.work_counter == nullptr && (p.steady_ctas < 1 || p.steady_ctas > int(grid.x))) return int(cudaErrorInvalidValue);
  // The longer path under kAuto's choice on the device starts behind the shorter one's grid.
  const bool after_prior = p.seq.choice == kRunsIfOneAsLong;
  return launch_ex(chunk_factors_kernel<kPublish>, grid, kCtaThreads, smem, stream, after_prior, 1, p, g_map);
}
}  // namespace

int launch_chunk_factors(const ChunkFactorsParams& p, Stream stream) {
  return p.ready != nullptr ? launch_chunk_factors_variant<true>(p, stream)
                            : launch_chunk_factors_variant<false>(p, stream);
}

}  // namespace gdn2::kernels
