// Internal device helpers shared by the kernels: sequence bounds, bf16 conversion, TF32 tensor-core
// tiles (mma.sync m16n8k8, phase 1), asynchronous global->shared copies and the launch of phase 2
// behind phase 1.
#pragma once

#include <atomic>
#include <cstdint>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>

#include "kernels/kernel_params.h"

namespace gdn2::kernels {

constexpr int kK = kHeadDimK;
constexpr int kV = kHeadDimV;
constexpr int kC = kChunk;          // tokens per chunk
constexpr int kBlock = 16;          // rows per block of the off-diagonal split
constexpr float kLog2e = 1.4426950408889634f;
constexpr size_t kMaxDynamicSmem = 227 * 1024;  // sm_90: shared memory a CTA may ask for

// Offset i of cu_seqlens as stored.
__device__ __forceinline__ int64_t cu_at(const Sequences& seq, int64_t i) {
  return seq.cu_int64 ? static_cast<const int64_t*>(seq.cu_seqlens)[i]
                      : static_cast<const int32_t*>(seq.cu_seqlens)[i];
}

// Whether offset i (0 <= i <= N) of cu_seqlens breaks the contract: outside [0, T], the first not
// 0, the last not T, or not above the previous one. Phase 1 checks every offset once (one per
// item of key head 0); the 32-channel state pass checks all of them itself (N is small there).
__device__ __forceinline__ bool offset_is_inconsistent(const Sequences& seq, int64_t i) {
  const int64_t x = cu_at(seq, i);
  return x < 0 || x > seq.T || (i == 0 && x != 0) || (i == seq.N && x != seq.T) || (i > 0 && x <= cu_at(seq, i - 1));
}

// [bos, eos) of sequence s, clamped into [0, T]: out-of-contract cu_seqlens can only shorten or
// empty a sequence, never send an access out of bounds.
struct SeqBounds {
  int64_t bos, eos;
};
__device__ __forceinline__ SeqBounds seq_bounds(const Sequences& seq, int s) {
  // One sequence: the contract allows only the offsets {0, T}, and any others make phase 2 write
  // NaN (offset_is_inconsistent reads them), so the bounds need no load of cu_seqlens on the way
  // to each kernel's first loads.
  if (seq.N == 1) return {0, seq.T};
  int64_t a = cu_at(seq, s), b = cu_at(seq, s + 1);
  a = min(max(a, int64_t(0)), seq.T);
  b = min(max(b, a), seq.T);
  return {a, b};
}

// Whether this kernel's path is the one that kAuto's choice on the device picks (DeviceChoice), the
// same in every thread of the CTA and in every kernel of the call: whether some sequence's clamped
// length (seq_bounds) reaches seq.choice_length. Reads the N + 1 offsets, one sequence per thread
// at a time; includes a CTA barrier where the choice is on the device (none otherwise).
template <int kThreads>
__device__ __forceinline__ bool path_is_chosen(const Sequences& seq) {
  if (seq.choice == kAlwaysRuns) return true;
  bool long_one = false;
  for (int s = threadIdx.x; s < seq.N; s += kThreads) {
    const SeqBounds sb = seq_bounds(seq, s);
    long_one |= sb.eos - sb.bos >= seq.choice_length;
  }
  const bool some_long = __syncthreads_or(long_one) != 0;
  return some_long == (seq.choice == kRunsIfOneAsLong);
}

// The number of 64-token chunks of a sequence.
__device__ __forceinline__ int64_t chunk_count(const SeqBounds& sb) { return (sb.eos - sb.bos + kC - 1) / kC; }

__device__ __forceinline__ float bf16_to_float(uint16_t x) {
  return __uint_as_float(uint32_t(x) << 16);
}
__device__ __forceinline__ uint16_t float_to_bf16(float x) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(x));
}
// Two values as bf16 (round to nearest even) in one word, lo in the low half: one instruction.
__device__ __forceinline__ uint32_t bf16_pair(float lo, float hi) {
  const __nv_bfloat162 x = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&x);
}

// Per-token log decay in base 2; the decay factor is d = exp2(decay_log2(g)) in [0, 1]
// (docs/algorithm.md): out-of-contract g > 0 acts as 0 and NaN as -inf (fmaxf drops a NaN
// operand), so d is never above 1 or NaN.
__device__ __forceinline__ float decay_log2(float g) { return fminf(fmaxf(g, -INFINITY), 0.f) * kLog2e; }

// fp32 to TF32, round to nearest, ties to even (the low 13 bits cleared): cvt.rn is one instruction
// on sm_90 (F2FP.TF32), where cvt.rna (ties away from zero) is three. Infinities and NaNs stay so.
__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// One warp's m16n8k8 TF32 product on register fragments, acc[16 x 8] += A[16 x 8] * B[8 x 8].
// Fragment layout (PTX ISA, mma.m16n8k8 .tf32): g = lane / 4, t = lane % 4;
//   a: (g, t) (g+8, t) (g, t+4) (g+8, t+4); b: (t, g) (t+4, g);
//   acc: (g, 2t) (g, 2t+1) (g+8, 2t) (g+8, 2t+1).
__device__ __forceinline__ void mma_tf32_frag(float (&acc)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The same with operands in shared memory, fp32 already rounded to TF32 (round_tf32):
// A(r, k) = a[r * a_rs + k * a_cs], B(k, n) = b[k * b_ks + n * b_ns].
__device__ __forceinline__ void mma_tf32_k8(float (&acc)[4], const float* a, int a_rs, int a_cs,
                                            const float* b, int b_ks, int b_ns, int lane) {
  const int g = lane >> 2, t = lane & 3;
  const uint32_t af[4] = {__float_as_uint(a[g * a_rs + t * a_cs]), __float_as_uint(a[(g + 8) * a_rs + t * a_cs]),
                          __float_as_uint(a[g * a_rs + (t + 4) * a_cs]),
                          __float_as_uint(a[(g + 8) * a_rs + (t + 4) * a_cs])};
  mma_tf32_frag(acc, af, __float_as_uint(b[t * b_ks + g * b_ns]), __float_as_uint(b[(t + 4) * b_ks + g * b_ns]));
}

// The same over `ksteps` steps of 8 along the reduction dimension.
__device__ __forceinline__ void mma_tf32(float (&acc)[4], const float* a, int a_rs, int a_cs,
                                         const float* b, int b_ks, int b_ns, int ksteps, int lane) {
#pragma unroll 4
  for (int s = 0; s < ksteps; ++s)
    mma_tf32_k8(acc, a + 8 * s * a_cs, a_rs, a_cs, b + 8 * s * b_ks, b_ks, b_ns, lane);
}

// acc += A * B to about fp32 accuracy on TF32 tensor cores ("3xTF32"): each fp32 operand is split
// into TF32 high and low parts, x = hi + lo, and A B ~ A_hi B_hi + (A_hi B_lo + A_lo B_hi), the
// correction terms in a second accumulator (two independent chains). Row-major fp32 operands in
// shared memory: A(r, k) = a[r * a_rs + k], B(k, n) = b[k * b_ks + n]; kSteps steps of 8 along k.
//
// The split: hi is x rounded to TF32 (to_tf32), lo = x - hi exactly, |lo| <= 2^-11 |x|. A
// non-finite x stays non-finite in the sum (hi keeps it, lo is NaN). lo is passed as fp32 bits: the
// tensor core reads the top 19 (it truncates), so it enters with a relative error below 2^-10,
// below 2^-21 |x| overall. Two instructions per element.
__device__ __forceinline__ void split_tf32(float x, uint32_t& hi, uint32_t& lo) {
  hi = to_tf32(x);
  lo = __float_as_uint(x - __uint_as_float(hi));
}
template <int kSteps>
__device__ __forceinline__ void mma_tf32x3(float (&acc)[4], const float* a, int a_rs, const float* b, int b_ks,
                                           int lane) {
  const int g = lane >> 2, t = lane & 3;
  float corr[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const float* as = a + 8 * s;
    const float* bs = b + 8 * s * b_ks;
    const float av[4] = {as[g * a_rs + t], as[(g + 8) * a_rs + t], as[g * a_rs + t + 4], as[(g + 8) * a_rs + t + 4]};
    const float bv[2] = {bs[t * b_ks + g], bs[(t + 4) * b_ks + g]};
    uint32_t ah[4], al[4], bh[2], bl[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) split_tf32(av[i], ah[i], al[i]);
#pragma unroll
    for (int i = 0; i < 2; ++i) split_tf32(bv[i], bh[i], bl[i]);
    mma_tf32_frag(corr, al, bh[0], bh[1]);
    mma_tf32_frag(corr, ah, bl[0], bl[1]);
    mma_tf32_frag(acc, ah, bh[0], bh[1]);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) acc[i] += corr[i];
}

// Four 8x8 matrices of 16-bit elements from shared memory (ldmatrix): lane l gives the address of
// row l % 8 of matrix l / 8, and register i receives matrix i, row lane / 4, elements 2 (lane % 4)
// and 2 (lane % 4) + 1. Read as 8 rows x 4 fp32 values, that is element (lane / 4, lane % 4): each
// register is one TF32 fragment register of mma.m16n8k8.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(row)));
}

// The same four 8x8 matrices transposed (ldmatrix .trans): register i receives matrix i, elements
// (row 2 (lane % 4), column lane / 4) in its low half and (row 2 (lane % 4) + 1, same column) in
// its high half.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(row)));
}
// Its inverse (stmatrix .trans): lane l gives the address of row l % 8 of matrix l / 8; register i
// holds matrix i's elements (row 2 (lane % 4), column lane / 4) and (row 2 (lane % 4) + 1, same
// column), low half first.
__device__ __forceinline__ void stmatrix_x4_trans(void* row, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};\n"
               :: "r"(smem_u32(row)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
}

// fp32 rounded to TF32 (the low 13 bits cleared), as tensor-core operands are stored.
__device__ __forceinline__ float round_tf32(float x) { return __uint_as_float(to_tf32(x)); }

// ---------------------------------------------------------------------------------------------
// Bulk asynchronous copies (TMA, no tensor map) completing on shared-memory barriers.
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, int arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(arrivals) : "memory");
}
// Makes initialised barriers visible to the copy engine (then a CTA barrier for the threads).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Orders this thread's earlier shared-memory accesses (and, after a CTA barrier, the CTA's) before
// later asynchronous-proxy writes to the same bytes.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// One arrival on `bar` that also makes the current phase wait for `bytes` more of bulk copies.
__device__ __forceinline__ void mbarrier_expect_bytes(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
// Makes the current phase of `bar` wait for `bytes` more of bulk copies, with no arrival.
__device__ __forceinline__ void mbarrier_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
// `bytes` (a multiple of 16, both addresses 16-byte aligned) from global to shared, counted on `bar`
// (whose phase some thread has told to expect them).
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   smem_u32(dst)),
               "l"(src), "r"(bytes), "r"(smem_u32(bar))
               : "memory");
}
// `bytes` (a multiple of 16, from a 16-byte aligned address) of global memory into L2, with no
// completion to wait for: a hint that a later load will read them.
__device__ __forceinline__ void prefetch_l2(const void* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(src), "r"(bytes));
}
// One thread: a bulk copy that is the only arrival of the phase of `bar` (which completes once the
// bytes land).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  mbarrier_expect_bytes(bar, bytes);
  bulk_copy(dst, src, bytes, bar);
}
// One arrival on `bar` (release: this thread's earlier accesses are ordered before the phase ends).
__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
// The loop of try_waits on a barrier's phase %1 at %0, with `sem` the wait's semantics ("": the
// default, acquire at CTA scope).
#define GDN2_MBARRIER_WAIT_LOOP(sem)                                         \
  "{\n .reg .pred done;\n WAIT:\n"                                           \
  " mbarrier.try_wait.parity" sem ".shared::cta.b64 done, [%0], %1;\n" \
  " @!done bra WAIT;\n}\n"
// Waits until phase `parity` of `bar` has completed.
__device__ __forceinline__ void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(GDN2_MBARRIER_WAIT_LOOP("") ::"r"(smem_u32(bar)), "r"(parity) : "memory");
}
// mbarrier_wait whose try_waits pass a suspend-time hint (ns), as CUTLASS's barrier waits do: on a
// phase not yet complete ptxas then puts the warp to sleep (NANOSLEEP.SYNCS) before it tests the
// phase again, where the plain loop yields and tests again at once. Used where it measured faster: the fused
// path's pair form (fused.cuh, Roles::kSuspendingWaits; docs/performance.md, "The pair form's
// wavefronts and waits").
constexpr uint32_t kWaitSuspendNs = 10000000;
__device__ __forceinline__ void mbarrier_wait_suspending(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1, %2;\n"
      " @!done bra WAIT;\n}\n" ::"r"(smem_u32(bar)),
      "r"(parity), "n"(kWaitSuspendNs)
      : "memory");
}

// ---------------------------------------------------------------------------------------------
// A cluster's CTAs (the fused path's pair form): shared-memory addresses of the peer, arrivals on
// its barriers, bulk copies into its shared memory, and the cluster's barrier.
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// The shared::cluster address of `p` (this CTA's shared memory) in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t peer_address(const void* p, uint32_t rank) {
  uint32_t a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(a) : "r"(smem_u32(p)), "r"(rank));
  return a;
}
// One arrival on another CTA's barrier (its shared::cluster address), with the default semantics
// (release, CTA scope), as CUTLASS's cluster pipelines (ClusterBarrier::arrive(cta_id)) release a
// buffer that another CTA's copy refills: the arriving thread's reads of its own shared memory have
// completed (their values are consumed before the arrival). The PTX memory model alone would ask
// for cluster scope on both sides (and a proxy fence before an async-proxy copy overwrites what
// generic loads read); this rests on that practice. (Release at cluster
// scope, which also orders the thread's earlier global stores at that scope, cost the pair form's
// consumer 1,100 cycles per block in its last segment against 540: docs/performance.md.)
__device__ __forceinline__ void mbarrier_arrive_remote(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// The same with release at cluster scope: this thread's earlier writes into that CTA's shared memory
// (st_shared_cluster) are visible to a thread there that waits with mbarrier_wait_acquire_cluster.
__device__ __forceinline__ void mbarrier_arrive_remote_release_cluster(uint32_t bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// A 4-byte store into another CTA's shared memory (its shared::cluster address).
__device__ __forceinline__ void st_shared_cluster(uint32_t addr, int value) {
  asm volatile("st.shared::cluster.u32 [%0], %1;\n" ::"r"(addr), "r"(value) : "memory");
}
// mbarrier_wait with acquire at cluster scope (what another CTA released into this one, above).
__device__ __forceinline__ void mbarrier_wait_acquire_cluster(uint64_t* bar, uint32_t parity) {
  asm volatile(GDN2_MBARRIER_WAIT_LOOP(".acquire.cluster") ::"r"(smem_u32(bar)), "r"(parity) : "memory");
}
// `bytes` (a multiple of 16, both 16-byte aligned) of this CTA's shared memory into another CTA's
// (dst and bar: shared::cluster addresses), counted on that CTA's barrier `bar`.
__device__ __forceinline__ void bulk_copy_to_peer(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "r"(smem_u32(src)), "r"(bytes), "r"(bar)
               : "memory");
}
// Every thread of every CTA of the cluster: earlier accesses (to any CTA's shared memory) ordered
// before anything after the barrier.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// The two halves of cluster_sync, where work goes between them: every thread of each CTA arrives
// (releasing its writes), later waits (acquiring the others').
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory"); }

// A box of a 2-D tensor (TMA) from global to shared memory, counted on `bar` like bulk_copy: box
// coordinates (x, y) in elements of the innermost and the outer dimension. `map` lives in kernel
// parameter space (a __grid_constant__ parameter). Rows beyond the tensor's end arrive as zeros.
__device__ __forceinline__ void tma_load_2d(void* dst, const TensorMap* map, int x, int y, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_u32(bar))
      : "memory");
}

// The same box into the shared memory of the cluster's CTAs in `cta_mask` (bit r: rank r), at
// dst's offset in each, counted on the barrier at bar's offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const TensorMap* map, int x, int y, uint64_t* bar,
                                                      uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3}], [%4], %5;\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_u32(bar)), "h"(cta_mask)
      : "memory");
}

// The same for a box of a 3-D tensor, coordinates (x, y, z) innermost first.
__device__ __forceinline__ void tma_load_3d(void* dst, const TensorMap* map, int x, int y, int z, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(z), "r"(smem_u32(bar))
      : "memory");
}

// ---------------------------------------------------------------------------------------------
// Flags in global memory between CTAs of different grids that run at the same time (phase 1 and
// the 32-channel state pass, docs/design.md, "Two phases"). The writer: every thread's stores, a
// barrier of the writing threads (in phase 1: the factor warps' release arrivals on an mbarrier
// that the solver waits on, then the solver's barrier), then one thread's release store of the flag. The reader: relaxed loads until the
// flag is seen, then an acquire fence, and a proxy fence before bulk copies read what it guards.
__device__ __forceinline__ void store_flag_release(int* flag, int value) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}
__device__ __forceinline__ int load_flag_relaxed(const int* flag) {
  int v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  return v;
}
__device__ __forceinline__ void fence_acquire_gpu() { asm volatile("fence.acq_rel.gpu;\n" ::: "memory"); }
// Orders this thread's view of global memory (generic proxy) before its later bulk copies.
__device__ __forceinline__ void fence_proxy_async_global() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }
// The global nanosecond timer (comparable across SMs, unlike clock64); for the timelines.
__device__ __forceinline__ long long global_timer_ns() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// ---------------------------------------------------------------------------------------------
// Programmatic dependent launch (docs/design.md, "Two phases"): the 32-channel state pass is launched
// with launch_after_prior_grid, so that its CTAs start while phase 1 still runs, do the part of
// their work that reads only the caller's inputs, and wait for phase 1's results with
// wait_for_prior_grid. (The register-state passes, for problems of several waves, keep the plain
// launch: the 64-channel one measured 2-3% slower launched this way: docs/performance.md.)
//
// Lets the grid launched after this one start as soon as every CTA of this grid has called it (or
// exited). It grants no visibility: the dependent grid still waits for this grid's memory.
__device__ __forceinline__ void allow_dependent_launch() { asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory"); }
// Waits until the grid this one was launched after has completed and its writes are visible; a
// no-op in a grid launched without the programmatic attribute.
__device__ __forceinline__ void wait_for_prior_grid() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
// Under kAuto's choice on the device (kernel_params.h, DeviceChoice), in a kernel whose path is not
// the chosen one: it does nothing, but it must still complete only after the grid launched before
// it, so that the call completes with its last kernel. One waiting CTA is enough for that (a grid
// completes when all its CTAs have): the first waits, every other CTA returns at once and frees its
// SM for the next kernel's CTAs. The caller returns after this.
__device__ __forceinline__ void leave_unchosen_path() {
  if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0) wait_for_prior_grid();
}

// The start of a kernel launched behind the previous grid in the stream (launch_ex, after_prior)
// whether or not kAuto's choice is on the device: the fused path's pair form (fused.cuh,
// Roles::kEarlyStart). It lets the next grid launch at once, and returns whether its path runs
// (path_is_chosen), having waited for the previous grid where it does.
//   - The call's first kernel (no choice, or the shorter path's under one): the grid before it is
//     the caller's, which may write anything this kernel reads or read anything it writes, so it
//     reads and writes no global memory before that grid has completed. Only `prepare` (thread 0:
//     shared memory, and prefetches of the kernel's parameters) runs before the wait, beside the
//     previous grid's tail: in back-to-back calls, the next call's CTAs start and set up while the
//     previous call's last CTAs run.
//   - The longer path's kernel under a choice: its previous grid is the call's first, which writes
//     nothing the decision reads (cu_seqlens), so it decides first and, where its path does not
//     run, leaves (leave_unchosen_path); where it runs, it waits, then prepares.
// `arrive` runs on every thread right after `prepare`: the pair form's arrival on its cluster
// barrier (cluster_arrive), so that the peer CTA's barriers are known ready before the wait for the
// previous grid; the kernel waits on the cluster barrier later (cluster_wait), after its first
// copy requests. What a thread writes after its arrival reaches other threads only through other
// barriers (S1 9.9 -> 9.25 us on an H100: bench/results/2026-12-06-cluster-early/).
// Only for kernels of one CTA per SM: where the next grid's CTAs can share an SM with this one's
// (the recurrent kernel, two CTAs per SM), they take its SMs' second places while they wait, and
// the next grid runs two CTAs on some SMs and none on others (one sequence of 64 tokens of 16
// heads on the recurrent path measured 16.0 -> 20.6 us launched so: docs/performance.md, "The
// pair form behind the previous grid").
// The call's first kernel under kAuto's choice on the device lets the next grid (the longer
// path's first kernel) launch only after its own wait: that grid reads cu_seqlens for its decision
// before it waits for anything, and a grid launched behind this one may start before the grid
// before this one has completed (measured: bench/pdl_order_probe.cu; docs/performance.md, "The
// fused start of the chunked path", step 6), so a caller's kernel that lets its dependents launch
// early and writes cu_seqlens later could otherwise be read half-done.
template <int kThreads, class Prepare, class Arrive>
__device__ __forceinline__ bool enter_after_prior_grid(const Sequences& seq, Prepare prepare, Arrive arrive) {
  const bool first = seq.choice != kRunsIfOneAsLong;
  if (seq.choice != kRunsIfAllShorter) allow_dependent_launch();
  if (first) {
    if (threadIdx.x == 0) prepare();
    arrive();
    wait_for_prior_grid();
    if (seq.choice == kRunsIfAllShorter) allow_dependent_launch();
  }
  if (!path_is_chosen<kThreads>(seq)) {
    if (!first) leave_unchosen_path();
    return false;
  }
  if (!first) {
    wait_for_prior_grid();
    if (threadIdx.x == 0) prepare();
    arrive();
  }
  return true;
}

// Launches `kernel` on `stream` with programmatic stream serialization: it may start before the
// previous kernel in the stream has finished, and must call wait_for_prior_grid before it reads what
// that kernel writes (or writes what that kernel reads). Captured into CUDA graphs as a programmatic
// edge. It may start before the kernel before the previous one has completed, where the previous one
// let it launch without waiting for that kernel (bench/pdl_order_probe.cu: 19 of 20 rounds on an H100).
// launch_ex: the same where `after_prior`, and CTAs in clusters of `cluster` along x (1: none).
template <typename... Params>
int launch_ex(void (*kernel)(Params...), dim3 grid, int threads, int smem, Stream stream, bool after_prior,
              unsigned cluster, const Params&... p) {
  cudaLaunchAttribute attr[2];
  unsigned count = 0;
  if (after_prior) {
    attr[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster > 1) {
    attr[count].id = cudaLaunchAttributeClusterDimension;
    attr[count++].val.clusterDim = {cluster, 1, 1};
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = size_t(smem);
  config.stream = reinterpret_cast<cudaStream_t>(stream);
  config.attrs = attr;
  config.numAttrs = count;
  return int(cudaLaunchKernelEx(&config, kernel, p...));
}
template <typename... Params>
int launch_after_prior_grid(void (*kernel)(Params...), dim3 grid, int threads, int smem, Stream stream,
                            const Params&... p) {
  return launch_ex(kernel, grid, threads, smem, stream, true, 1, p...);
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

// The driver's tensor-map encoder, looked up once (null where the driver has none).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
#else  // before CUDA 12.5 the runtime has only the unversioned lookup
    const cudaError_t err = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found);
#endif
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess) fn = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

// A tiled TMA descriptor of a `rank`-D tensor (rank <= 3): dims and box innermost first, `strides`
// the byte strides of dimensions 1 .. rank - 1 (multiples of 16, the base 16-byte aligned); a box's
// elements outside the tensor arrive as zeros. Returns a cudaError_t as an int (0 on success).
inline int encode_tiled_map(TensorMap* map, CUtensorMapDataType type, uint32_t rank, const void* base,
                            const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                            CUtensorMapSwizzle swizzle) {
  static_assert(sizeof(TensorMap) == sizeof(CUtensorMap) && alignof(TensorMap) >= alignof(CUtensorMap),
                "TensorMap holds a CUtensorMap");
  const auto encode = tensor_map_encoder();
  if (encode == nullptr) return int(cudaErrorNotSupported);
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = encode(reinterpret_cast<CUtensorMap*>(map), type, rank, const_cast<void*>(base), dims, strides,
                            box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? 0 : int(cudaErrorInvalidValue);
}

// A 2-D bf16 tensor [rows][cols] (row stride `row_stride` elements, 16-byte aligned) as a TMA
// descriptor for boxes of box_rows x box_cols with the 128-byte swizzle (box_cols * 2 <= 128):
// within each 8 rows of 128 bytes, 16-byte part j of row r lands at part j ^ (r % 8).
inline int encode_bf16_tile_map(TensorMap* map, const void* base, uint64_t rows, uint64_t cols, uint64_t row_stride,
                                uint32_t box_rows, uint32_t box_cols) {
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {row_stride * 2};
  const cuuint32_t box[2] = {box_cols, box_rows};
  return encode_tiled_map(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
}

}  // namespace gdn2::kernels
