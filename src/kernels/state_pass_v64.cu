// Phase 2 with 64-channel value slices (2 CTAs per (sequence, value head)), for problems of more
// than one wave: the sequential pass over the chunks of one sequence (docs/algorithm.md, value
// side), transposed so that the state is the left operand of every product it enters:
//   R^T = (w*v)^T - S^T Kb^T;  U^T = R^T T^T;  O^T = scale (S^T Qg^T + U^T M^T);
//   S1^T = S^T diag(gamma) + U^T Kend.
// Value channels evolve independently, so one CTA owns a slice of 64 value channels of one
// (sequence, value head) — the M = 64 rows of every product — and the slices of a head run on
// different SMs with no communication.
//
// Two roles (docs/design.md, "Phase 2"):
//   - the consumer warpgroup holds S^T (64 x 128, fp32) in registers across chunks and runs every
//     product as wgmma with A from registers: each product's A is the previous product's
//     accumulator, rounded to TF32 (wgmma.cuh, acc_to_a); the factors are the B operands;
//   - two producer warps: one copies each factor group into shared memory (bulk copies completing
//     on "full" barriers) as soon as the consumer has released the previous chunk's copy ("empty"
//     barriers), the other loads the chunk's rows of v and w the same way.
// Shared memory carries only the factors, v, w (each read once per chunk) and the output tile; the
// consumer never waits for another warpgroup's products, only for copies and loads.
#include "kernels/state_pass_common.cuh"
#include "kernels/wgmma.cuh"

namespace gdn2::kernels {
namespace {

constexpr int kSliceV = 64;                  // value channels per CTA
constexpr int kSlices = kV / kSliceV;
constexpr int kConsumerThreads = 128;        // one warpgroup
constexpr int kThreads = kConsumerThreads + 64;  // and two producer warps: factors; v and w
constexpr int kMkStages = 2;                 // M, Kend^T and gamma are double-buffered: the last
                                             // products of chunk c + 1 need not wait for a copy issued
                                             // after chunk c's last products
constexpr int kLdRow = kSliceV + 8;         // row stride (bf16) of the v, w and output tiles [64 tokens]
                                             // [64 channels]: 144 bytes, the consumer's accesses are
                                             // conflict-free

// The factor groups of a chunk, each one bulk copy of a contiguous piece of its factor block.
constexpr int kKqFloats = factor_block::kT - factor_block::kKb;      // Kb, Qg
constexpr int kTFloats = factor_block::kM - factor_block::kT;        // T
constexpr int kMkFloats = factor_block::kFloats - factor_block::kM;  // M, Kend^T, gamma

struct Smem {
  float kq[kKqFloats];
  float t[kTFloats];
  float mk[kMkStages][kMkFloats];
  uint16_t v[kC * kLdRow];  // v and w of the slice for one chunk, [token][value channel], bf16;
  uint16_t w[kC * kLdRow];  // rows past the chunk's end are not loaded (and not read)
  uint16_t o[kC * kLdRow];  // the chunk's output, staged for 16-byte stores
  uint64_t mk_full[kMkStages], mk_empty[kMkStages];
  uint64_t kq_full, kq_empty, t_full, t_empty, vw_full, vw_empty;
};

// Rows [0, len) of the slice of v and w for one chunk, [token][channel] with row stride kLdRow:
// one 16-byte load per lane and row part, all issued before the first store.
__device__ void load_vw(const StatePassParams& p, const ChunkRef& ch, int h, int v0, Smem& sm) {
  constexpr int kParts = kSliceV / 8, kPerLane = kC * kParts / 32;
  const int lane = threadIdx.x & 31;
  uint4 vr[kPerLane], wr[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int idx = 32 * i + lane, row = idx / kParts, part = idx % kParts;
    if (row < ch.len) {
      const int64_t off = (ch.t0 + row) * p.Hv * kV + int64_t(h) * kV + v0 + 8 * part;
      vr[i] = *reinterpret_cast<const uint4*>(p.v + off);
      wr[i] = *reinterpret_cast<const uint4*>(p.w + off);
    }
  }
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int idx = 32 * i + lane, row = idx / kParts, part = idx % kParts;
    if (row < ch.len) {
      *reinterpret_cast<uint4*>(sm.v + row * kLdRow + 8 * part) = vr[i];
      *reinterpret_cast<uint4*>(sm.w + row * kLdRow + 8 * part) = wr[i];
    }
  }
}

// The producer warps. Warp 0: per chunk Kb/Qg, T, then M/Kend^T/gamma, bulk copies issued by lane 0
// once the consumer has released the buffer's previous contents. Warp 1: v and w of each chunk
// once the consumer has read the previous one's.
__device__ void produce(const StatePassParams& p, const SeqBounds& sb, int s, int h, int hk, int v0,
                        int64_t nchunks, Smem& sm) {
  const int lane = threadIdx.x & 31;
  if (threadIdx.x / 32 != kConsumerThreads / 32) {
    for (int64_t c = 0; c < nchunks; ++c) {
      if (c > 0) mbarrier_wait(&sm.vw_empty, uint32_t(c - 1) & 1);
      load_vw(p, chunk_ref(sb, s, c), h, v0, sm);
      mbarrier_arrive(&sm.vw_full);  // every lane: its own stores are released with its arrival
    }
    return;
  }
  if (lane != 0) return;
  auto copy = [&](float* dst, const float* src, int floats, uint64_t* full) {
    fence_proxy_async();  // the consumer's generic reads of the buffer before the copy's writes
    bulk_load(dst, src, uint32_t(floats) * uint32_t(sizeof(float)), full);
  };
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const float* block = p.factors + (int64_t(hk) * p.slots + ch.slot) * factor_block::kFloats;
    if (c > 0) mbarrier_wait(&sm.kq_empty, uint32_t(c - 1) & 1);
    copy(sm.kq, block + factor_block::kKb, kKqFloats, &sm.kq_full);
    if (c > 0) mbarrier_wait(&sm.t_empty, uint32_t(c - 1) & 1);
    copy(sm.t, block + factor_block::kT, kTFloats, &sm.t_full);
    const int stage = int(c % kMkStages);
    const uint32_t use = uint32_t(c / kMkStages);  // how often this stage was filled before
    if (use > 0) mbarrier_wait(&sm.mk_empty[stage], (use - 1) & 1);
    copy(sm.mk[stage], block + factor_block::kM, kMkFloats, &sm.mk_full[stage]);
  }
}

__device__ __forceinline__ void sync_consumers() { asm volatile("bar.sync 1, 128;\n" ::: "memory"); }

// The consumer warpgroup. Thread (warp w, lane (g, t)) holds rows v = 16 w + g and v + 8 of every
// accumulator (value channels of the slice) and columns 8 j + 2 t, + 1 (key channels of S^T,
// tokens of R^T, U^T and O^T). (Products of n128 and n192 that share their A, [R^T | O^T] and
// [O^T | S1^T], measured slower than these n64 and n128 ones: docs/performance.md.)
__device__ void consume(const StatePassParams& p, const SeqBounds& sb, int s, int h, int v0,
                        int64_t state_off, int64_t nchunks, Smem& sm) {
  constexpr int kStepsK = kK / 8, kStepsC = kC / 8;
  const int lane = threadIdx.x & 31;
  const int row = 16 * (threadIdx.x / 32) + (lane >> 2), col = 2 * (lane & 3);

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
    const float* kb = sm.kq + (factor_block::kKb - factor_block::kKb);
    const float* qg = sm.kq + (factor_block::kQg - factor_block::kKb);
    const float* mqk = sm.mk[stage] + (factor_block::kM - factor_block::kM);
    const float* kend_t = sm.mk[stage] + (factor_block::kKendT - factor_block::kM);
    const float* gamma = sm.mk[stage] + (factor_block::kGamma - factor_block::kM);

    // R^T starts as (w*v)^T (zero past the chunk's end: exact, a product of two bf16 fits in
    // fp32), O^T as zero.
    float r[kC / 2], o[kC / 2];
    mbarrier_wait(&sm.vw_full, parity);
#pragma unroll
    for (int j = 0; j < kC / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int tok = 8 * j + col + e, at = tok * kLdRow + row + 8 * hh;
          r[4 * j + 2 * hh + e] = tok < ch.len ? bf16_to_float(sm.v[at]) * bf16_to_float(sm.w[at]) : 0.f;
          o[4 * j + 2 * hh + e] = 0.f;
        }
    mbarrier_arrive(&sm.vw_empty);

    // R^T -= S^T Kb^T and O^T = S^T Qg^T, both with S^T (rounded to TF32) as A.
    uint32_t sa[kK / 2];
    acc_to_a<kStepsK>(st, sa);
    mbarrier_wait(&sm.kq_full, parity);
    fence_operands(r);
    fence_operands(o);
    fence_operands(sa);
    wgmma_fence();
    wgmma_issue<kC, -1, kK, kStepsK>(r, sa, kb);
    wgmma_issue<kC, 1, kK, kStepsK>(o, sa, qg);
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
    for (int i = 0; i < kC / 2; ++i) u[i] = 0.f;
    mbarrier_wait(&sm.t_full, parity);
    fence_operands(u);
    fence_operands(ra);
    wgmma_fence();
    wgmma_issue<kC, 1, kC, kStepsC>(u, ra, sm.t);
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

    // O = scale (O^T)^T through shared memory, then 16-byte stores of rows inside the chunk.
    sync_consumers();  // the previous chunk's rows are stored
#pragma unroll
    for (int j = 0; j < kC / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          sm.o[(8 * j + col + e) * kLdRow + row + 8 * hh] = float_to_bf16(p.scale * o[4 * j + 2 * hh + e]);
    sync_consumers();
    constexpr int kParts = kSliceV / 8;
#pragma unroll
    for (int idx = threadIdx.x; idx < kC * kParts; idx += kConsumerThreads) {
      const int tok = idx / kParts, part = idx % kParts;
      if (tok < ch.len)
        *reinterpret_cast<uint4*>(p.out + ((ch.t0 + tok) * p.Hv + h) * kV + v0 + 8 * part) =
            *reinterpret_cast<const uint4*>(sm.o + tok * kLdRow + 8 * part);
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

__global__ void __launch_bounds__(kThreads, 1) state_pass_kernel_v64(const StatePassParams p) {
  extern __shared__ float4 smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(smem_raw);
  const int s = blockIdx.x / kSlices, v0 = (blockIdx.x % kSlices) * kSliceV;
  const int h = blockIdx.y, hk = h / (p.Hv / p.Hq);
  const SliceWork work = slice_work(p, s, h, v0);
  const SeqBounds sb = work.sb;
  const int64_t state_off = work.state_off, nchunks = work.nchunks;

  if (*p.fault) {  // inconsistent cu_seqlens: NaN in every output row and state (documented)
    fill_nan<kSliceV, kThreads>(p, s, h, v0, state_off);
    return;
  }
  if (threadIdx.x == 0) {
    for (int i = 0; i < kMkStages; ++i) {
      mbarrier_init(&sm.mk_full[i], 1);
      mbarrier_init(&sm.mk_empty[i], kConsumerThreads);
    }
    mbarrier_init(&sm.kq_full, 1);
    mbarrier_init(&sm.t_full, 1);
    mbarrier_init(&sm.kq_empty, kConsumerThreads);
    mbarrier_init(&sm.t_empty, kConsumerThreads);
    mbarrier_init(&sm.vw_full, 32);
    mbarrier_init(&sm.vw_empty, kConsumerThreads);
    fence_barrier_init();
  }
  __syncthreads();  // the only CTA barrier: afterwards the roles meet only at the mbarriers
  if (threadIdx.x < kConsumerThreads) consume(p, sb, s, h, v0, state_off, nchunks, sm);
  else produce(p, sb, s, h, hk, v0, nchunks, sm);
}

}  // namespace

int launch_state_pass_v64(const StatePassParams& p, Stream stream) {
  const int smem = int(sizeof(Smem));
  static std::atomic<uint64_t> smem_set{0};
  const int err = allow_dynamic_smem(state_pass_kernel_v64, smem, smem_set);
  if (err != 0) return err;
  const dim3 grid(unsigned(p.seq.N) * kSlices, unsigned(p.Hv));
  state_pass_kernel_v64<<<grid, kThreads, smem, reinterpret_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}

}  // namespace gdn2::kernels
