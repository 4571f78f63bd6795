// The recurrent path: the recurrence of docs/algorithm.md ("The recurrence as it is") token by
// token, in fp32 on the CUDA cores, with no factor block and one launch. For problems whose
// sequences are all short, where the chunked path's first chunk (phase 1's item, then the pass) is
// a fixed latency of about 16 us whatever the length; src/launch.cu decides (docs/design.md, "Two
// algorithms"). Correct for any length: a long sequence only takes longer.
//
// Work items are (sequence, value head, slice of kSliceV value channels), independent of each
// other; persistent CTAs take them in turn (recurrent_kernel). Thread (warp w, lane l) holds the
// state entries S[c][v] of two value channels v = v0 + 4 w + 2 (l / 16) + {0, 1} and eight key
// channels c = 64 i + 4 (l % 16) + e (i < 2, e < 4): the 16 lanes of a half warp hold one value
// channel's 128 key channels, so a token's two reductions over K (S^T (b k) and S^T q) are four
// shuffle levels within a half warp. A token is one chain of dependent steps (the reduction, then
// the update that the next token's reduction reads): about 0.2 us on the H200, set by the warp's
// issue and its stalls rather than by the shuffles or the shared-memory reads (docs/performance.md,
// "The recurrent path": variants with fewer bytes or more warps per SM were slower).
//
// Per token t of a sequence, with d_t = exp2(decay_log2(g_t)) (device_common.cuh):
//   p   = S^T (d_t b_t k_t)          (= (Diag(d_t) S)^T (b_t k_t): the decay is off this chain)
//   u   = w_t v_t - p
//   S  <- Diag(d_t) S + k_t u^T
//   o_t = S^T (scale q_t)
// The key-side vectors (d, d b k, k, scale q) and w v of kTokens tokens at a time are formed once
// per CTA in shared memory from the raw inputs, which the threads load into registers one block
// ahead (rows past the sequence's end are zeros, never used).
#include <algorithm>

#include "kernels/state_pass_common.cuh"

namespace gdn2::kernels {
namespace recurrent {

constexpr int kThreads = 128;
constexpr int kSliceV = 16;             // value channels per CTA: 4 per warp, 2 per thread
constexpr int kSlices = kRecurrentSlices;
static_assert(kSlices * kSliceV == kV, "the slices cover V");
constexpr int kTokens = 16;             // tokens per staged block
constexpr int kUnroll = 4;              // tokens per group of the chain loop (a block's last n % 4 run alone)
constexpr int kCtasPerSm = kRecurrentCtasPerSm;  // 2 (__launch_bounds__): up to 255 registers, which
                                                 // measured faster than 3 CTAs at 168 (performance.md)
static_assert(kThreads == 8 * kSliceV && kK == 128 && kTokens % kUnroll == 0, "layout of this file");

struct Smem {
  float4 d[kTokens][kK / 4];    // decay factors
  float4 dbk[kTokens][kK / 4];  // d * b * k
  float4 k[kTokens][kK / 4];
  float4 q[kTokens][kK / 4];    // scale * q
  float2 wv[kTokens][kSliceV / 2];
};

// One thread's share of a block's raw inputs: 4 channels (4 cq .. 4 cq + 3) of tokens
// threadIdx.x / 32 + 4 m of q, k, b, g, and 2 value channels of one token of v and w.
struct Raw {
  uint2 q[4], k[4], b[4];
  float4 g[4];
  uint32_t v, w;
};

__device__ __forceinline__ Raw load_raw(const RecurrentParams& p, int64_t t0, int64_t eos, int hk, int h, int v0) {
  Raw r;
  const int cq = threadIdx.x % 32;
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    const int64_t t = t0 + threadIdx.x / 32 + 4 * m;
    r.q[m] = r.k[m] = r.b[m] = make_uint2(0u, 0u);
    r.g[m] = make_float4(0.f, 0.f, 0.f, 0.f);
    if (t < eos) {
      const int64_t at = (t * p.value.Hq + hk) * kK + 4 * cq;
      r.q[m] = *reinterpret_cast<const uint2*>(p.q + at);
      r.k[m] = *reinterpret_cast<const uint2*>(p.k + at);
      r.b[m] = *reinterpret_cast<const uint2*>(p.b + at);
      r.g[m] = *reinterpret_cast<const float4*>(p.g + at);
    }
  }
  const int64_t t = t0 + threadIdx.x / 8;
  r.v = r.w = 0u;
  if (t < eos) {
    const int64_t at = (t * p.value.Hv + h) * kV + v0 + 2 * (threadIdx.x % 8);
    r.v = *reinterpret_cast<const uint32_t*>(p.value.v + at);
    r.w = *reinterpret_cast<const uint32_t*>(p.value.w + at);
  }
  return r;
}

__device__ __forceinline__ float lo_bf16(uint32_t x) { return __uint_as_float(x << 16); }
__device__ __forceinline__ float hi_bf16(uint32_t x) { return __uint_as_float(x & 0xffff0000u); }

// The block's key-side vectors and w v into shared memory (after a CTA barrier that ends every read
// of the previous block; a CTA barrier must follow).
__device__ __forceinline__ void stage(const Raw& r, float scale, Smem& sm) {
  const int cq = threadIdx.x % 32;
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    const int j = threadIdx.x / 32 + 4 * m;
    const float k0 = lo_bf16(r.k[m].x), k1 = hi_bf16(r.k[m].x), k2 = lo_bf16(r.k[m].y), k3 = hi_bf16(r.k[m].y);
    const float4 d = make_float4(exp2f(decay_log2(r.g[m].x)), exp2f(decay_log2(r.g[m].y)),
                                 exp2f(decay_log2(r.g[m].z)), exp2f(decay_log2(r.g[m].w)));
    sm.d[j][cq] = d;
    sm.dbk[j][cq] = make_float4(d.x * (lo_bf16(r.b[m].x) * k0), d.y * (hi_bf16(r.b[m].x) * k1),
                                d.z * (lo_bf16(r.b[m].y) * k2), d.w * (hi_bf16(r.b[m].y) * k3));
    sm.k[j][cq] = make_float4(k0, k1, k2, k3);
    sm.q[j][cq] = make_float4(scale * lo_bf16(r.q[m].x), scale * hi_bf16(r.q[m].x), scale * lo_bf16(r.q[m].y),
                              scale * hi_bf16(r.q[m].y));
  }
  sm.wv[threadIdx.x / 8][threadIdx.x % 8] =
      make_float2(lo_bf16(r.w) * lo_bf16(r.v), hi_bf16(r.w) * hi_bf16(r.v));
}

// One token (row j of the staged block) for this thread's state entries st (the layout above):
// the state update, and the token's output for value channel vl + kq / 8, summed onto the lanes
// kq = 0 and kq = 8 of the half warp (other lanes return partial sums).
__device__ __forceinline__ float token_step(const Smem& sm, int j, int kq, int vl, float (&st)[2][8]) {
  float dd[8], dbk[8], kk[8], qq[8];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float4 a = sm.d[j][16 * i + kq], b = sm.dbk[j][16 * i + kq], c = sm.k[j][16 * i + kq],
                 e = sm.q[j][16 * i + kq];
    dd[4 * i] = a.x, dd[4 * i + 1] = a.y, dd[4 * i + 2] = a.z, dd[4 * i + 3] = a.w;
    dbk[4 * i] = b.x, dbk[4 * i + 1] = b.y, dbk[4 * i + 2] = b.z, dbk[4 * i + 3] = b.w;
    kk[4 * i] = c.x, kk[4 * i + 1] = c.y, kk[4 * i + 2] = c.z, kk[4 * i + 3] = c.w;
    qq[4 * i] = e.x, qq[4 * i + 1] = e.y, qq[4 * i + 2] = e.z, qq[4 * i + 3] = e.w;
  }
  // p = S^T (d b k) on the state before this token, summed over the half warp (every lane gets
  // both value channels' sums).
  float pr[2];
#pragma unroll
  for (int x = 0; x < 2; ++x) {
    float a = 0.f, b = 0.f;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      a = fmaf(st[x][e], dbk[e], a);
      b = fmaf(st[x][4 + e], dbk[4 + e], b);
    }
    pr[x] = a + b;
  }
#pragma unroll
  for (int m = 8; m >= 1; m /= 2) {
    pr[0] += __shfl_xor_sync(0xffffffffu, pr[0], m);
    pr[1] += __shfl_xor_sync(0xffffffffu, pr[1], m);
  }
  const float2 wv = sm.wv[j][vl / 2];
  const float u0 = wv.x - pr[0], u1 = wv.y - pr[1];
  // S <- Diag(d) S + k u^T, then o = S^T (scale q).
  float o[2];
#pragma unroll
  for (int x = 0; x < 2; ++x) {
    const float u = x == 0 ? u0 : u1;
    float a = 0.f, b = 0.f;
#pragma unroll
    for (int e = 0; e < 8; ++e) st[x][e] = fmaf(kk[e], u, st[x][e] * dd[e]);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      a = fmaf(st[x][e], qq[e], a);
      b = fmaf(st[x][4 + e], qq[4 + e], b);
    }
    o[x] = a + b;
  }
  const bool upper = (kq & 8) != 0;
  float mine = upper ? o[1] : o[0];
  mine += __shfl_xor_sync(0xffffffffu, upper ? o[0] : o[1], 8);
#pragma unroll
  for (int m = 4; m >= 1; m /= 2) mine += __shfl_xor_sync(0xffffffffu, mine, m);
  return mine;
}


// This thread's entries of the item's initial state (zeros without one): h0[x][i] holds key channels
// 64 i + 4 kq .. + 3 of value channel v0 + vl + x.
__device__ __forceinline__ void load_initial_state(const StatePassParams& pv, const SliceItem& it, int vl, int kq,
                                                   float4 (&h0)[2][2]) {
  const int64_t off = state_offsets(pv, it.s, it.h, it.v0).h0;
#pragma unroll
  for (int x = 0; x < 2; ++x)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      float e[4] = {0.f, 0.f, 0.f, 0.f};
      if (off >= 0) load_state<4>(pv, off + (vl + x) * kK + 64 * i + 4 * kq, e);
      h0[x][i] = make_float4(e[0], e[1], e[2], e[3]);
    }
}

// Persistent CTAs on a static schedule: CTA b takes items b, b + grid, b + 2 grid, ... (every item
// costs about the same where kAuto picks this path: no sequence longer than 64 tokens). The next
// block's raw inputs, or the next item's first, load while the current block's tokens run.
__global__ void __launch_bounds__(kThreads, kCtasPerSm) recurrent_kernel(const __grid_constant__ RecurrentParams p) {
  __shared__ Smem sm;
  const StatePassParams& pv = p.value;
  // kAuto's choice on the device (kernel_params.h): this path is always the shorter one, so the
  // call's first kernel, launched plainly; the other path's kernels may launch from here on.
  if (pv.seq.choice != kAlwaysRuns) allow_dependent_launch();
  if (p.zero_at_start != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *p.zero_at_start = 0;
  if (!path_is_chosen<kThreads>(pv.seq)) return;  // another path runs
  const int64_t items = int64_t(pv.seq.N) * pv.Hv * kSlices;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, kq = lane % 16, half = lane / 16;
  const int vl = 4 * warp + 2 * half;  // the thread's first value channel within the slice
  SliceItem it = slice_item<kSlices>(pv, blockIdx.x);
  // The item's raw inputs and initial state, in flight during the check below; later, the next
  // item's load during the current item's last block.
  Raw raw = load_raw(p, it.sb.bos, it.sb.eos, it.hk, it.h, it.v0);
  float4 h0[2][2];
  load_initial_state(pv, it, vl, kq, h0);
  if (cu_seqlens_fault<kThreads>(pv.seq)) {  // inconsistent cu_seqlens: NaN in every output row and state
    for (int64_t item = blockIdx.x; item < items; item += gridDim.x) {
      const SliceItem bad = slice_item<kSlices>(pv, item);
      fill_nan<kSliceV, kThreads>(pv, bad.s, bad.h, bad.v0, state_offsets(pv, bad.s, bad.h, bad.v0).ht);
    }
    return;
  }

  const bool stores = (kq & 7) == 0;   // lanes kq = 0 and 8 store value channel vl + kq / 8
  const int64_t row_stride = int64_t(pv.Hv) * kV;
  for (int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    // st[x][4 i + e] = S[64 i + 4 kq + e][v0 + vl + x]
    float st[2][8];
#pragma unroll
    for (int x = 0; x < 2; ++x)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        st[x][4 * i] = h0[x][i].x;
        st[x][4 * i + 1] = h0[x][i].y;
        st[x][4 * i + 2] = h0[x][i].z;
        st[x][4 * i + 3] = h0[x][i].w;
      }
    const SliceItem next = slice_item<kSlices>(pv, item + gridDim.x < items ? item + gridDim.x : item);
    uint16_t* out = pv.out + it.h * kV + it.v0 + vl + (kq >> 3);
    // A state index past its pool (StateOffsets::bad): the item runs from zeros (h0 was not read)
    // and writes no state; its output rows become NaN after its own stores (same threads' order).
    const StateOffsets state = state_offsets(pv, it.s, it.h, it.v0);
    const bool bad_slot = state.bad();
    for (int64_t t0 = it.sb.bos; t0 < it.sb.eos; t0 += kTokens) {
      __syncthreads();  // every read of the previous block is done
      stage(raw, pv.scale, sm);
      __syncthreads();
      if (t0 + kTokens < it.sb.eos) raw = load_raw(p, t0 + kTokens, it.sb.eos, it.hk, it.h, it.v0);
      else if (item + gridDim.x < items) {
        raw = load_raw(p, next.sb.bos, next.sb.eos, next.hk, next.h, next.v0);
        load_initial_state(pv, next, vl, kq, h0);
      }
      const int n = int(min(int64_t(kTokens), it.sb.eos - t0));
      int j0 = 0;
      for (; j0 + kUnroll <= n; j0 += kUnroll) {
        // The group's outputs are stored after its last token, so that no store (and no branch)
        // sits between one token's chain and the next one's.
        float og[kUnroll];
#pragma unroll
        for (int jj = 0; jj < kUnroll; ++jj) og[jj] = token_step(sm, j0 + jj, kq, vl, st);
        if (stores) {
          uint16_t* o = out + (t0 + j0) * row_stride;
#pragma unroll
          for (int jj = 0; jj < kUnroll; ++jj) o[jj * row_stride] = float_to_bf16(og[jj]);
        }
      }
      for (; j0 < n; ++j0) {  // the block's last n % kUnroll tokens, one at a time
        const float o = token_step(sm, j0, kq, vl, st);
        if (stores) out[(t0 + j0) * row_stride] = float_to_bf16(o);
      }
    }
    if (state.ht >= 0 && !bad_slot) {
#pragma unroll
      for (int x = 0; x < 2; ++x)
#pragma unroll
        for (int i = 0; i < 2; ++i)
          store_state<4>(pv, state.ht + (vl + x) * kK + 64 * i + 4 * kq, &st[x][4 * i]);
    }
    if (bad_slot && stores)
      for (int64_t t = it.sb.bos; t < it.sb.eos; ++t) out[t * row_stride] = 0x7fc0u;  // a bf16 NaN
    it = next;
  }
}

}  // namespace recurrent

// 1-D grid of min(items, kCtasPerSm x SMs) persistent CTAs, 128 threads, static shared memory
// only; no chunk factors.
int launch_recurrent(const RecurrentParams& p, Stream stream) {
  using namespace recurrent;
  const int64_t items = int64_t(p.value.seq.N) * p.value.Hv * kSlices;
  const int64_t grid = std::min(items, int64_t(kCtasPerSm) * p.sms);
  return launch_ex(recurrent_kernel, dim3(unsigned(grid)), kThreads, 0, stream, false, 1, p);
}

}  // namespace gdn2::kernels
