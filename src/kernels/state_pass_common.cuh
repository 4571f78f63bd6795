// Phase 2 helpers shared by the state-pass kernels (state_pass_ss.cuh, state_pass_rs.cuh): where a
// chunk of a sequence lies, and the fault path.
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

// A CTA's work: value slice [v0, v0 + width) of value head h of sequence s, its bounds, its
// offset into the state tensors and its number of chunks.
struct SliceWork {
  SeqBounds sb;
  int64_t state_off;
  int64_t nchunks;
};
__device__ __forceinline__ SliceWork slice_work(const StatePassParams& p, int s, int h, int v0) {
  const SeqBounds sb = seq_bounds(p.seq, s);
  return {sb, (int64_t(s) * p.Hv + h) * kV * kK + int64_t(v0) * kK, (sb.eos - sb.bos + kC - 1) / kC};
}

// The fault path: this CTA's slice (kWidth value channels from v0) of output rows s, s + N,
// s + 2N, ... (together the CTAs of all sequences cover every row exactly once) and of final state s
// become NaN. kThreads: the CTA's threads.
template <int kWidth, int kThreads>
__device__ __forceinline__ void fill_nan(const StatePassParams& p, int s, int h, int v0, int64_t state_off) {
  constexpr int kPairs = kWidth / 2;
  for (int64_t idx = threadIdx.x; idx < ((p.seq.T - s + p.seq.N - 1) / p.seq.N) * kPairs; idx += kThreads) {
    const int64_t t = s + (idx / kPairs) * p.seq.N;
    const int64_t off = (t * p.Hv + h) * kV + v0 + 2 * (idx % kPairs);
    *reinterpret_cast<uint32_t*>(p.out + off) = 0x7fc07fc0u;  // two bf16 NaNs
  }
  if (p.final_state)
    for (int idx = threadIdx.x; idx < kWidth * kK; idx += kThreads) p.final_state[state_off + idx] = __int_as_float(0x7fc00000);
}

}  // namespace gdn2::kernels
