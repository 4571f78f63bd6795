// Value-side helpers shared by the state-pass kernels (state_pass_ss.cuh, state_pass_rs.cuh) and
// the one-launch paths (recurrent.cu, fused.cuh): where a chunk of a sequence lies, a one-launch
// path's work items, phase 1's fault words and the fault path, and the unpacking of T and M stored
// packed.
#pragma once

#include <cstdint>

#include "kernels/device_common.cuh"

namespace gdn2::kernels {

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

// The square factors T and M in shared memory, for a pass that reads them in the packed format
// (kernel_params.h, factor_block::triangle_group_*): the full K-major [64][64] layout that the
// products read, filled group by group. The core matrices right of each row group's packed ones
// are zeroed once, before the first copy (zero_above_triangle; the copies never write them).
inline constexpr int kSquareFloats = kC * kC;
inline constexpr uint32_t kTriangleBytes = uint32_t(factor_block::kTriangleFloats) * sizeof(float);
// One thread: the copies of one packed T or M into `dst`, counted on `bar` (whose phase the caller
// has told to expect kTriangleBytes more).
__device__ __forceinline__ void copy_triangle(float* dst, const float* src, uint64_t* bar) {
#pragma unroll
  for (int rg = 0; rg < factor_block::kRowGroups; ++rg)
    bulk_copy(dst + rg * 8 * kC, src + factor_block::triangle_group_offset(rg),
              uint32_t(factor_block::triangle_group_floats(rg)) * sizeof(float), bar);
}
// `threads` threads numbered from `first`: zeros where copy_triangle does not write, then the proxy
// fence that orders them before the products' reads (a CTA barrier must follow).
__device__ __forceinline__ void zero_above_triangle(float* dst, int first, int threads) {
  for (int idx = first; idx < kSquareFloats / 4; idx += threads) {
    const int rg = idx / (2 * kC), at = 4 * idx - rg * 8 * kC;  // float offset within the row group
    if (at >= factor_block::triangle_group_floats(rg))
      reinterpret_cast<float4*>(dst)[idx] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  fence_proxy_async();
}

// Where value channel v0 of head h of sequence s starts in each state tensor (floats from its
// base): `h0` in initial_state, `ht` in final_state, or kNoState where there is none (no tensor, or
// a negative state index), or kBadSlot where the sequence's index is at or past the pool's slots:
// then neither state is touched and the item's output rows become NaN (fill_nan_rows).
inline constexpr int64_t kNoState = -1, kBadSlot = -2;
struct StateOffsets {
  int64_t h0, ht;
  __device__ __forceinline__ bool bad() const { return h0 == kBadSlot || ht == kBadSlot; }
};
__device__ __forceinline__ int64_t state_offset(const void* data, const int* index, int64_t slots, int64_t stride,
                                                int s, int h, int v0) {
  if (data == nullptr) return kNoState;
  int64_t slot = s;
  if (index != nullptr) {
    slot = index[s];
    if (slot < 0) return kNoState;
    if (slot >= slots) return kBadSlot;
  }
  return slot * stride + (int64_t(h) * kV + v0) * kK;
}
__device__ __forceinline__ StateOffsets state_offsets(const StatePassParams& p, int s, int h, int v0) {
  return {state_offset(p.initial_state, p.initial_index, p.initial_slots, p.initial_stride, s, h, v0),
          state_offset(p.final_state, p.final_index, p.final_slots, p.final_stride, s, h, v0)};
}

// The state tensors' elements, fp32 or bf16 (StatePassParams::initial_bf16 / final_bf16; a bf16
// state is rounded to nearest even once, when it is written). `n` consecutive elements from element
// `off` (n = 1, 2 or 4: one aligned access, as the slots' strides are multiples of 4 elements).
template <int n>
__device__ __forceinline__ void load_state(const StatePassParams& p, int64_t off, float* x) {
  static_assert(n == 1 || n == 2 || n == 4, "one access of 1, 2 or 4 elements");
  if (p.initial_bf16) {
    const uint16_t* src = static_cast<const uint16_t*>(p.initial_state) + off;
    uint32_t u[2] = {0u, 0u};
    if constexpr (n == 4) {
      const uint2 pair = *reinterpret_cast<const uint2*>(src);
      u[0] = pair.x;
      u[1] = pair.y;
    } else if constexpr (n == 2) {
      u[0] = *reinterpret_cast<const uint32_t*>(src);
    } else {
      u[0] = *src;
    }
#pragma unroll
    for (int i = 0; i < n; ++i) x[i] = bf16_to_float(uint16_t(u[i / 2] >> (16 * (i % 2))));
  } else {
    const float* src = static_cast<const float*>(p.initial_state) + off;
    if constexpr (n == 4) {
      const float4 v = *reinterpret_cast<const float4*>(src);
      x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
    } else if constexpr (n == 2) {
      const float2 v = *reinterpret_cast<const float2*>(src);
      x[0] = v.x, x[1] = v.y;
    } else {
      x[0] = *src;
    }
  }
}
template <int n>
__device__ __forceinline__ void store_state(const StatePassParams& p, int64_t off, const float* x) {
  static_assert(n == 1 || n == 2 || n == 4, "one access of 1, 2 or 4 elements");
  if (p.final_bf16) {
    uint16_t* dst = static_cast<uint16_t*>(p.final_state) + off;
    if constexpr (n == 4) *reinterpret_cast<uint2*>(dst) = make_uint2(bf16_pair(x[0], x[1]), bf16_pair(x[2], x[3]));
    else if constexpr (n == 2) *reinterpret_cast<uint32_t*>(dst) = bf16_pair(x[0], x[1]);
    else *dst = float_to_bf16(x[0]);
  } else {
    float* dst = static_cast<float*>(p.final_state) + off;
    if constexpr (n == 4) *reinterpret_cast<float4*>(dst) = make_float4(x[0], x[1], x[2], x[3]);
    else if constexpr (n == 2) *reinterpret_cast<float2*>(dst) = make_float2(x[0], x[1]);
    else *dst = x[0];
  }
}

// kCount single elements x[i] at element base + at(i) of the initial (load) or final (store) state;
// nothing where base < 0 (no state; the load gives zeros). The load selects the dtype per element
// (one branch around all kCount loads made the fused GVA pair spill 8 bytes), the store branches
// once.
template <int kCount, class At>
__device__ __forceinline__ void load_state_elements(const StatePassParams& p, int64_t base, At at, float* x) {
  const bool bf16 = p.initial_bf16;
  const uint16_t* src16 = static_cast<const uint16_t*>(p.initial_state) + base;
  const float* src32 = static_cast<const float*>(p.initial_state) + base;
#pragma unroll
  for (int i = 0; i < kCount; ++i) {
    float v = 0.f;
    if (base >= 0) v = bf16 ? bf16_to_float(src16[at(i)]) : src32[at(i)];
    x[i] = v;
  }
}
template <int kCount, class At>
__device__ __forceinline__ void store_state_elements(const StatePassParams& p, int64_t base, At at, const float* x) {
  if (base < 0) return;
  if (p.final_bf16) {
    uint16_t* dst = static_cast<uint16_t*>(p.final_state) + base;
#pragma unroll
    for (int i = 0; i < kCount; ++i) dst[at(i)] = float_to_bf16(x[i]);
  } else {
    float* dst = static_cast<float*>(p.final_state) + base;
#pragma unroll
    for (int i = 0; i < kCount; ++i) dst[at(i)] = x[i];
  }
}

// A CTA's work: value slice [v0, v0 + width) of value head h of sequence s, its bounds, its
// offsets into the state tensors and its number of chunks.
struct SliceWork {
  SeqBounds sb;
  StateOffsets state;
  int64_t nchunks;
};
__device__ __forceinline__ SliceWork slice_work(const StatePassParams& p, int s, int h, int v0) {
  const SeqBounds sb = seq_bounds(p.seq, s);
  return {sb, state_offsets(p, s, h, v0), chunk_count(sb)};
}

// A work item of the one-launch paths (recurrent.cu, fused.cuh): value channels [v0, v0 + V /
// kSlices) of value head h (key head hk) of sequence s. Items are numbered ((s Hv) + h) kSlices +
// slice, so that consecutive items read the same key-side rows.
// Its state offsets are not kept here (state_offsets(p, it.s, it.h, it.v0) where needed): the
// fused kernels would hold them in registers for the item's whole life.
struct SliceItem {
  int s, h, hk, v0;
  SeqBounds sb;
};
template <int kSlices>
__device__ __forceinline__ SliceItem slice_item(const StatePassParams& p, int64_t item) {
  SliceItem it;
  it.v0 = int(item % kSlices) * (kV / kSlices);
  it.h = int((item / kSlices) % p.Hv);
  it.s = int(item / (int64_t(kSlices) * p.Hv));
  it.hk = it.h / (p.Hv / p.Hq);
  it.sb = seq_bounds(p.seq, it.s);
  return it;
}

// Whether phase 1 did not run because kAuto's choice on the device picked another path
// (kernel_params.h, DeviceChoice); then neither does the pass. Read after phase 1 has completed.
__device__ __forceinline__ bool phase1_skipped(const StatePassParams& p) {
  return p.seq.choice != kAlwaysRuns && p.fault_words[0] == kPhase1Skipped;
}

// Phase 1's verdict on cu_seqlens, the same in every thread: its CTAs' fault words, one read by
// each thread (p.fault_count <= kMaxPhase1Ctas <= kThreads). Includes a CTA barrier.
template <int kThreads>
__device__ __forceinline__ bool phase1_fault(const StatePassParams& p) {
  static_assert(kThreads >= kMaxPhase1Ctas, "one thread per phase-1 fault word");
  const int t = threadIdx.x;
  return __syncthreads_or(t < p.fault_count && p.fault_words[t] != 0) != 0;
}

// Whether cu_seqlens breaks the contract anywhere (offset_is_inconsistent), the same in every
// thread: one offset per thread, N + 1 in all. Includes a CTA barrier.
template <int kThreads>
__device__ __forceinline__ bool cu_seqlens_fault(const Sequences& seq) {
  bool bad = false;
  for (int i = threadIdx.x; i <= seq.N; i += kThreads) bad |= offset_is_inconsistent(seq, i);
  return __syncthreads_or(bad) != 0;
}

// The fault path: this CTA's slice (kWidth value channels from v0) of output rows s, s + N,
// s + 2N, ... (together the CTAs of all sequences cover every row exactly once) and of sequence s's
// final state (where it has one: `ht`, StateOffsets) become NaN. kThreads: the CTA's threads.
template <int kWidth, int kThreads>
__device__ __forceinline__ void fill_nan(const StatePassParams& p, int s, int h, int v0, int64_t ht) {
  constexpr int kPairs = kWidth / 2;
  for (int64_t idx = threadIdx.x; idx < ((p.seq.T - s + p.seq.N - 1) / p.seq.N) * kPairs; idx += kThreads) {
    const int64_t t = s + (idx / kPairs) * p.seq.N;
    const int64_t off = (t * p.Hv + h) * kV + v0 + 2 * (idx % kPairs);
    *reinterpret_cast<uint32_t*>(p.out + off) = 0x7fc07fc0u;  // two bf16 NaNs
  }
  if (ht >= 0) {
    const float nan[1] = {__int_as_float(0x7fc00000)};
    for (int idx = threadIdx.x; idx < kWidth * kK; idx += kThreads) store_state<1>(p, ht + idx, nan);
  }
}

// A state index past its pool (StateOffsets::bad): this CTA's slice of the sequence's own output
// rows [sb.bos, sb.eos) becomes NaN; no state is read or written.
template <int kWidth, int kThreads>
__device__ __forceinline__ void fill_nan_rows(const StatePassParams& p, const SeqBounds& sb, int h, int v0) {
  constexpr int kPairs = kWidth / 2;
  for (int64_t idx = threadIdx.x; idx < (sb.eos - sb.bos) * kPairs; idx += kThreads) {
    const int64_t off = ((sb.bos + idx / kPairs) * p.Hv + h) * kV + v0 + 2 * (idx % kPairs);
    *reinterpret_cast<uint32_t*>(p.out + off) = 0x7fc07fc0u;  // two bf16 NaNs
  }
}

}  // namespace gdn2::kernels
