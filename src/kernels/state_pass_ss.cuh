// Phase 2 for 32-channel value slices (state_pass_v32.cu): the sequential pass over the chunks of
// one sequence (docs/algorithm.md, value side):
//   R = w*v - Kb S0;  U = T R;  O = scale (Qg S0 + M U);  S1 = gamma * S0 + Kend^T U.
// Value channels evolve independently, so one CTA owns a slice of kSliceV value channels of one
// (sequence, value head): the slices of a head run on different SMs with no communication.
//
// Every product is one warpgroup's wgmma (m64 x kSliceV, TF32) on operands in shared memory
// (wgmma.cuh): the factor block arrives there by bulk copies (A operands, their k index permuted:
// kernel_params.h, factor_offset); S, R and U are stored there, with the same permutation of their
// k index, by the warpgroup that forms them. Four warpgroups, each with one role:
//   0: R = w*v - Kb S, then U = T R;       1: Qg S, then O = scale (Qg S + M U);
//   2, 3: the fp32 state of key channels 0..63 and 64..127 in registers, S1 = gamma S + Kend^T U.

#pragma once

#include "kernels/state_pass_common.cuh"
#include "kernels/wgmma.cuh"

namespace gdn2::kernels::state_pass {

constexpr int kThreads = 4 * kWarpgroup;
enum Role { kRoleRU = 0, kRoleOut = 1, kRoleState = 2 };  // warpgroups 2 and 3 share the state role

// The factor groups of a chunk, each one bulk copy of a contiguous piece of the chunk's factor block
// (kernel_params.h) into the same layout here, completing on its own barrier. Kb and Qg are separate
// groups, issued Kb, T, Qg: the chain's first product (RU's Kb S) waits only for its own operand,
// not for Qg's 32 KB as well (docs/performance.md: S5 -1.9 to -2.4%, L32K-MHA -1.1 to -1.7%).
enum Group { kGroupKb, kGroupQg, kGroupT, kGroupMKendGamma, kGroups };
__host__ __device__ constexpr int group_begin(int grp) {
  return grp == kGroupKb ? factor_block::kKb : grp == kGroupQg ? factor_block::kQg
       : grp == kGroupT ? factor_block::kT : factor_block::kM;
}
__host__ __device__ constexpr int group_end(int grp) {
  return grp == kGroupMKendGamma ? factor_block::kFloats : group_begin(grp + 1);
}

template <int kSliceV>
struct Smem {
  float factors[factor_block::kFloats];
  float st[kSliceV * kK];     // S  [K][kSliceV]  (8 k-pairs per n8 tile)
  float rt[kSliceV * kC];     // R  [64][kSliceV] (4 k-pairs per n8 tile)
  float ut[kSliceV * kC];     // U  [64][kSliceV]
  uint64_t full[kGroups];     // one barrier per factor group, one phase per chunk
};

// The issuer of an overlapped pass, before the first copy of chunk c of the sequence: phase 1 runs at
// the same time (docs/design.md, "Two phases"), so it waits until the chunk's factor block is
// published (ChunkFactorsParams::ready). `known`: the chunks already seen ready. Polls the words of
// up to 8 chunks at once (relaxed loads, in flight together), sleeping between rounds; one acquire
// fence and one proxy fence then cover every chunk seen ready. Returns the new count of chunks
// known ready.
// kOnce: one round of polls, no sleep: returns `known` unchanged if chunk c is not ready yet.
template <bool kOnce = false>
__device__ __forceinline__ int64_t wait_until_ready(const StatePassParams& p, int hk, const ChunkRef& first_of_seq,
                                                    int64_t c, int64_t nchunks, int64_t known) {
  if (c < known) return known;
  constexpr int kPoll = 8;
  const int* ready = p.ready + int64_t(hk) * p.slots + first_of_seq.slot;  // chunk c owns slot first + c
  for (;;) {
    int v[kPoll];
#pragma unroll
    for (int i = 0; i < kPoll; ++i) v[i] = c + i < nchunks ? load_flag_relaxed(ready + c + i) : 0;
    int64_t n = 0;
#pragma unroll
    for (int i = 0; i < kPoll; ++i) n += (n == i && v[i] != 0) ? 1 : 0;
    if (n > 0) {
      fence_acquire_gpu();
      fence_proxy_async_global();
      return c + n;
    }
    if constexpr (kOnce) return known;
    __nanosleep(100);
  }
}

// One thread: the bulk copy of one factor group of chunk `ch` (the caller has made the buffer free:
// a CTA barrier after its last reader).
template <int kSliceV>
__device__ __forceinline__ void issue_group(int grp, const StatePassParams& p, int hk, const ChunkRef& ch,
                                            Smem<kSliceV>& sm) {
  const float* block = p.factors + (int64_t(hk) * p.slots + ch.slot) * factor_block::kFloats;
  fence_proxy_async();
  bulk_load(sm.factors + group_begin(grp), block + group_begin(grp),
            uint32_t(group_end(grp) - group_begin(grp)) * uint32_t(sizeof(float)), &sm.full[grp]);
}

// This thread's accumulator elements of an m64 x kSliceV product, rows row0 + 16 w + g (+ 8), stored
// as TF32 into a B operand with K = kRows (the product's row is the B operand's k, permuted as the
// factors' k: factor_offset), in the order that keeps each store free of bank conflicts
// (kernel_params.h, acc_store_offset).
template <int kSliceV, int kRows>
__device__ __forceinline__ void store_acc_as_b(float* dst, int row0, const float (&acc)[kSliceV / 2]) {
  const int lane = threadIdx.x & 31, k = row0 + 16 * ((threadIdx.x / 32) % 4) + (lane >> 2);
#pragma unroll
  for (int j = 0; j < kSliceV / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float x0 = round_tf32(acc[4 * j + 2 * h]), x1 = round_tf32(acc[4 * j + 2 * h + 1]);
#pragma unroll
      for (int i = 0; i < 2; ++i) dst[acc_store_offset(lane, k, j, h, i, kRows)] = acc_store_column(lane, i) ? x1 : x0;
    }
}

__device__ __forceinline__ void sync_warpgroup() { asm volatile("bar.sync 1, %0;\n" ::"n"(kWarpgroup) : "memory"); }

// Optional per-chunk timeline (build option GDN2_PHASE1_TIMELINE; kernel_params.h,
// read_pass_timeline): thread 0 (the RU warpgroup's) reads the SM clock at marks 0 to 2, 8 to 11
// and 16 of each chunk, the copies' issuer times its wait for the next chunk's block (mark 3), and
// the first threads of the Out warpgroup and of the two state warpgroups read it at marks 4 to 7,
// 12 to 15 and 17 to 19.
#ifdef GDN2_PHASE1_TIMELINE
__device__ long long g_pass_marks[kPassTimelineCtas][kPassTimelineChunks][kPassMarks];
__device__ long long g_pass_start_ns[kPassTimelineCtas][kPassTimelineChunks];
__device__ int g_pass_chunks[kPassTimelineCtas];
__device__ __forceinline__ int pass_timeline_cta() { return int(blockIdx.y * gridDim.x + blockIdx.x); }
__device__ __forceinline__ void pass_mark(int mark, int64_t c, int thread = 0) {
  const int cta = pass_timeline_cta();
  if (threadIdx.x == thread && cta < kPassTimelineCtas && c < kPassTimelineChunks) {
    g_pass_marks[cta][c][mark] = clock64();
    if (mark == 0) g_pass_start_ns[cta][c] = global_timer_ns();
  }
}
#define GDN2_PASS_MARK(mark, c) pass_mark(mark, c)
#define GDN2_PASS_MARK_BY(mark, c, thread) pass_mark(mark, c, thread)
#define GDN2_PASS_WAIT_BEGIN() const long long pass_wait_begin = clock64()
#define GDN2_PASS_WAIT_END(c)                                                                  \
  do {                                                                                         \
    const int cta_ = pass_timeline_cta();                                                      \
    if (cta_ < kPassTimelineCtas && (c) < kPassTimelineChunks)                                 \
      g_pass_marks[cta_][c][3] = clock64() - pass_wait_begin;                                  \
  } while (0)
#define GDN2_PASS_CHUNKS(n) \
  do { if (threadIdx.x == 0 && pass_timeline_cta() < kPassTimelineCtas) g_pass_chunks[pass_timeline_cta()] = int(n); } while (0)
#else
#define GDN2_PASS_MARK(mark, c) ((void)0)
#define GDN2_PASS_MARK_BY(mark, c, thread) ((void)0)
#define GDN2_PASS_WAIT_BEGIN() ((void)0)
#define GDN2_PASS_WAIT_END(c) ((void)0)
#define GDN2_PASS_CHUNKS(n) ((void)0)
#endif

// kOverlapped: the pass runs alongside phase 1 (p.ready is set; docs/design.md, "Two phases").
// A separate instantiation, so that the plain pass carries none of its code: with it compiled in
// as a run-time branch, the plain pass measured 4-5% slower on one 2-3K-token sequence.
template <int kSliceV, bool kOverlapped>
__global__ void __launch_bounds__(kThreads, 1) state_pass_kernel(const StatePassParams p) {
  constexpr int kSlices = kV / kSliceV;
  constexpr int kAcc = kSliceV / 2;  // accumulator registers per thread of an m64 x kSliceV product
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
  const int wg = warpgroup_index(), lane = threadIdx.x & 31;  // wg uniform: the state role's
                                                              // Kend^T descriptors too
  const int role = wg < kRoleState ? wg : kRoleState;
  // This thread's accumulator rows (16 w + g, + 8) and first column (2 t) in every n8 tile.
  const int arow = 16 * ((threadIdx.x / 32) % 4) + (lane >> 2), acol = 2 * (lane & 3);
  const SliceWork work = slice_work(p, s, h, v0);
  const SeqBounds sb = work.sb;
  const StateOffsets state_at = work.state;
  const int64_t nchunks = work.nchunks;

  // Per chunk c, two CTA barriers ("wait X" = the barrier of factor group X, phase c & 1):
  //   sync, issue MKendGamma(c);  RU: wait Kb(c), R, wait T(c), U;  Out: wait Qg(c), Qg S;
  //   sync, issue Kb(c+1), T(c+1), Qg(c+1);  Out: wait MKend(c), O;  State: wait MKend(c), S1.
  // The first barrier publishes S and frees M, Kend^T; the second publishes U and frees Kb, Qg,
  // T and S (every reader has waited for its products before it).
  if (threadIdx.x == 0) {
    for (int grp = 0; grp < kGroups; ++grp) mbarrier_init(&sm.full[grp], 1);
    fence_barrier_init();
  }

  // What reads only the caller's inputs runs while phase 1 may still be running (the kernel is
  // launched behind it: launch_after_prior_grid): the initial state and the first chunk's v, w.
  // State role: key channels krow (+ 8) of this warpgroup's half, value channels 8 j + acol (+ 1).
  // Global layout [V][K]: element (n, c) at n * K + c.
  const int krow = 64 * (wg - kRoleState) + arow;
  float state[kAcc];
  if (role == kRoleState) {
#pragma unroll
    for (int j = 0; j < kSliceV / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          state[4 * j + 2 * hh + e] = 0.f;
          if (state_at.h0 >= 0)
            load_state<1>(p, state_at.h0 + (8 * j + acol + e) * kK + krow + 8 * hh, &state[4 * j + 2 * hh + e]);
        }
    store_acc_as_b<kSliceV, kK>(sm.st, 64 * (wg - kRoleState), state);
    fence_proxy_async();
  }

  // RU role: v and w at this thread's accumulator positions, one chunk ahead.
  const int64_t vw_col = int64_t(h) * kV + v0 + acol;
  uint32_t vraw[kSliceV / 8][2], wraw[kSliceV / 8][2];
  auto load_vw = [&](const ChunkRef& ch) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const int row = arow + 8 * hh;
      const int64_t off = (ch.t0 + row) * p.Hv * kV + vw_col;
#pragma unroll
      for (int j = 0; j < kSliceV / 8; ++j) {
        vraw[j][hh] = row < ch.len ? *reinterpret_cast<const uint32_t*>(p.v + off + 8 * j) : 0u;
        wraw[j][hh] = row < ch.len ? *reinterpret_cast<const uint32_t*>(p.w + off + 8 * j) : 0u;
      }
    }
  };
  if (role == kRoleRU && nchunks > 0) load_vw(chunk_ref(sb, s, 0));

  // Phase 1's factors and fault words from here on, unless this pass runs alongside it
  // (kOverlapped): then phase 1's fault words are not final, so this CTA checks
  // cu_seqlens itself (N is at most SMs / 8 there), and it waits for each chunk's factor block
  // instead. Inconsistent offsets: NaN in every output row and state (documented), and no factor
  // block is waited for (a chunk of this sequence may be no item of phase 1).
  constexpr bool overlapped = kOverlapped;
  if constexpr (!overlapped) {
    wait_for_prior_grid();
    if (phase1_skipped(p)) return;  // kAuto's choice on the device: another path runs
  }
  bool fault;
  if constexpr (overlapped) fault = cu_seqlens_fault<kThreads>(p.seq);
  else fault = phase1_fault<kThreads>(p);
  if (fault || state_at.bad()) {
    if (fault) fill_nan<kSliceV, kThreads>(p, s, h, v0, state_at.ht);
    else fill_nan_rows<kSliceV, kThreads>(p, sb, h, v0);  // a state index past its pool
    if constexpr (overlapped) wait_for_prior_grid();  // as at the end: the call completes with phase 1
    return;
  }
  __syncthreads();  // the barriers are initialised
  const bool issuer = threadIdx.x == 3 * kWarpgroup;  // the copies' issuer: a state thread, which has no
                                               // global access in flight for its proxy fence to wait on
  const ChunkRef first = chunk_ref(sb, s, 0);
  int64_t known_ready = 0;  // overlapped: the issuer's count of chunks whose factor blocks are published
  if (issuer && nchunks > 0) {
    if constexpr (overlapped) known_ready = wait_until_ready(p, hk, first, 0, nchunks, known_ready);
    issue_group(kGroupKb, p, hk, first, sm);
    issue_group(kGroupT, p, hk, first, sm);
    issue_group(kGroupQg, p, hk, first, sm);
  }

  float acc[kAcc];
  for (int64_t c = 0; c < nchunks; ++c) {
    const ChunkRef ch = chunk_ref(sb, s, c);
    const bool has_next = c + 1 < nchunks;
    const uint32_t parity = uint32_t(c & 1);

    __syncthreads();  // S(c) is complete; M and Kend^T are free
    GDN2_PASS_MARK(0, c);
    if (issuer) {
      issue_group(kGroupMKendGamma, p, hk, ch, sm);
      // The issuer's warpgroup (a state one) waits for the second barrier anyway: it polls for the
      // next chunk's block now, so that after that barrier it only issues the copies and its
      // S1 product, which a poll there delayed (the poll's round trip and fences), starts at once.
      // Once, without sleeping: a block not yet published is waited for after the barrier, as before.
      if constexpr (overlapped)
        if (has_next) known_ready = wait_until_ready<true>(p, hk, first, c + 1, nchunks, known_ready);
    }
    if (role == kRoleRU) {
      // R = w*v - Kb S (w*v is zero past the chunk's end), stored for U = T R
#pragma unroll
      for (int j = 0; j < kSliceV / 8; ++j)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          acc[4 * j + 2 * hh] = bf16_to_float(uint16_t(vraw[j][hh] & 0xffffu)) * bf16_to_float(uint16_t(wraw[j][hh] & 0xffffu));
          acc[4 * j + 2 * hh + 1] = bf16_to_float(uint16_t(vraw[j][hh] >> 16)) * bf16_to_float(uint16_t(wraw[j][hh] >> 16));
        }
      GDN2_PASS_MARK(16, c);
      mbarrier_wait(&sm.full[kGroupKb], parity);
      GDN2_PASS_MARK(8, c);
      wgmma_product_ss<-1, kK, kK, kK / 8>(acc, kb, sm.st);
      GDN2_PASS_MARK(9, c);
      store_acc_as_b<kSliceV, kC>(sm.rt, 0, acc);
      fence_proxy_async();
      sync_warpgroup();  // R is complete
      mbarrier_wait(&sm.full[kGroupT], parity);
      GDN2_PASS_MARK(10, c);
      wgmma_product_ss<1, kC, kC, kC / 8, false>(acc, tinv, sm.rt);
      GDN2_PASS_MARK(11, c);
      store_acc_as_b<kSliceV, kC>(sm.ut, 0, acc);
      fence_proxy_async();
      GDN2_PASS_MARK(1, c);
      // The next chunk's v and w only now: the proxy fences above wait for this thread's
      // outstanding memory accesses, loads included.
      if (has_next) load_vw(chunk_ref(sb, s, c + 1));
    } else if (role == kRoleOut) {
      mbarrier_wait(&sm.full[kGroupQg], parity);
      wgmma_product_ss<1, kK, kK, kK / 8, false>(acc, qg, sm.st);
      GDN2_PASS_MARK_BY(4, c, kRoleOut * kWarpgroup);
    }

    __syncthreads();  // U is complete; Kb, Qg, T and S are free
    GDN2_PASS_MARK(2, c);
    if (issuer && has_next) {
      const ChunkRef next = chunk_ref(sb, s, c + 1);
      GDN2_PASS_WAIT_BEGIN();
      if constexpr (overlapped) known_ready = wait_until_ready(p, hk, first, c + 1, nchunks, known_ready);
      GDN2_PASS_WAIT_END(c);
      issue_group(kGroupKb, p, hk, next, sm);
      issue_group(kGroupT, p, hk, next, sm);
      issue_group(kGroupQg, p, hk, next, sm);
    }
    if (role == kRoleOut) {  // O = scale (Qg S + M U), rows past the chunk's end not written
      mbarrier_wait(&sm.full[kGroupMKendGamma], parity);
      GDN2_PASS_MARK_BY(14, c, kRoleOut * kWarpgroup);
      wgmma_product_ss<1, kC, kC, kC / 8>(acc, mqk, sm.ut);
      GDN2_PASS_MARK_BY(15, c, kRoleOut * kWarpgroup);
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int row = arow + 8 * hh;
        if (row < ch.len) {
          const int64_t off = (ch.t0 + row) * p.Hv * kV + vw_col;
#pragma unroll
          for (int j = 0; j < kSliceV / 8; ++j) {
            *reinterpret_cast<uint32_t*>(p.out + off + 8 * j) =
                bf16_pair(p.scale * acc[4 * j + 2 * hh], p.scale * acc[4 * j + 2 * hh + 1]);
          }
        }
      }
      GDN2_PASS_MARK_BY(7, c, kRoleOut * kWarpgroup);
    } else if (role == kRoleState) {  // S1 = gamma S + Kend^T U for this half of the key channels
      GDN2_PASS_MARK_BY(17, c, kRoleState * kWarpgroup);
      GDN2_PASS_MARK_BY(18, c, (kRoleState + 1) * kWarpgroup);
      mbarrier_wait(&sm.full[kGroupMKendGamma], parity);
      GDN2_PASS_MARK_BY(12, c, kRoleState * kWarpgroup);
      wgmma_product_ss<1, kC, kC, kC / 8, false>(acc, kend_t + kmajor_offset(64 * (wg - kRoleState), 0, kC), sm.ut);
      GDN2_PASS_MARK_BY(13, c, kRoleState * kWarpgroup);
      GDN2_PASS_MARK_BY(19, c, (kRoleState + 1) * kWarpgroup);
      const float gamma_lo = gamma[krow], gamma_hi = gamma[krow + 8];
#pragma unroll
      for (int j = 0; j < kSliceV / 8; ++j) {
        state[4 * j] = gamma_lo * state[4 * j] + acc[4 * j];
        state[4 * j + 1] = gamma_lo * state[4 * j + 1] + acc[4 * j + 1];
        state[4 * j + 2] = gamma_hi * state[4 * j + 2] + acc[4 * j + 2];
        state[4 * j + 3] = gamma_hi * state[4 * j + 3] + acc[4 * j + 3];
      }
      store_acc_as_b<kSliceV, kK>(sm.st, 64 * (wg - kRoleState), state);
      fence_proxy_async();
      GDN2_PASS_MARK_BY(5, c, kRoleState * kWarpgroup);
      GDN2_PASS_MARK_BY(6, c, (kRoleState + 1) * kWarpgroup);
    }
  }
  GDN2_PASS_CHUNKS(nchunks);
  if (role == kRoleState && state_at.ht >= 0) {  // straight from the fp32 registers
#pragma unroll
    for (int j = 0; j < kSliceV / 8; ++j)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          store_state<1>(p, state_at.ht + (8 * j + acol + e) * kK + krow + 8 * hh, &state[4 * j + 2 * hh + e]);
  }
  // Overlapped, this grid has not yet waited for phase 1 as a whole; it completes only after it, so
  // that whatever follows the call in the stream (a reuse of the workspace included) runs after both.
  if constexpr (overlapped) wait_for_prior_grid();
}

}  // namespace gdn2::kernels::state_pass

namespace gdn2::kernels {

template <int kSliceV, bool kOverlapped>
int launch_state_pass_ss_variant(const StatePassParams& p, Stream stream) {
  static_assert(kSliceV == 32, "the SS products are m64 x n32");
  using state_pass::kThreads;
  const int smem = int(sizeof(state_pass::Smem<kSliceV>));
  static std::atomic<uint64_t> smem_set{0};
  const int err = allow_dynamic_smem(state_pass::state_pass_kernel<kSliceV, kOverlapped>, smem, smem_set);
  if (err != 0) return err;
  const dim3 grid(unsigned(p.seq.N) * (kV / kSliceV), unsigned(p.Hv));
  return launch_after_prior_grid(state_pass::state_pass_kernel<kSliceV, kOverlapped>, grid, kThreads, smem, stream, p);
}

// Alongside phase 1 where the host asked for it (p.ready), else behind it.
template <int kSliceV>
int launch_state_pass_ss(const StatePassParams& p, Stream stream) {
  return p.ready != nullptr ? launch_state_pass_ss_variant<kSliceV, true>(p, stream)
                            : launch_state_pass_ss_variant<kSliceV, false>(p, stream);
}

}  // namespace gdn2::kernels
