// Phase 2: the sequential pass over the chunks of one sequence (docs/algorithm.md, value side):
//   R = w*v - Kb S0;  U = T R;  O = scale (Qg S0 + M U);  S1 = gamma * S0 + Kend^T U.
// Value channels evolve independently, so one CTA owns a slice of kSliceV value channels of one
// (sequence, value head): the slices of a head run on different SMs with no communication.
// The fp32 state slice lives in registers in the tensor-core accumulator layout, with a copy in
// shared memory as the B operand of the next chunk's products.
#include "kernels/device_common.cuh"

namespace gdn2::kernels {
namespace {

constexpr int kThreads = 256;   // 8 warps
constexpr int kSliceV = 32;     // value channels per CTA
constexpr int kSlices = kV / kSliceV;
constexpr int kLd = kK + 4;     // [64][K] A operands, read row-major: conflict-free
constexpr int kLdKend = kK + 8; // Kend is read transposed: conflict-free with this stride
constexpr int kLdC = kC + 4;    // [64][64] A operands
constexpr int kLdS = kSliceV + 8;  // B operands [rows][kSliceV]

struct Smem {
  float kb[kC * kLd];
  float qg[kC * kLd];
  float kend[kC * kLdKend];
  float t[kC * kLdC];
  float m[kC * kLdC];
  float s[kK * kLdS];   // state slice S[k][n]
  float r[kC * kLdS];   // R = w*v - Kb S
  float u[kC * kLdS];   // U = T R
  float gamma[kK];
};

// One chunk's key-side factors into shared memory with asynchronous copies. Rows past the chunk's
// end are zero-filled: they then contribute exact zeros to every product.
__device__ void load_factors(const StatePassParams& p, int hk, int64_t t0, int len, int64_t slot,
                             Smem& sm) {
  const int tid = threadIdx.x;
  const int64_t row0 = int64_t(hk) * p.seq.T + t0;
  for (int idx = tid; idx < kC * (kK / 4); idx += kThreads) {
    const int r = idx / (kK / 4), c = (idx % (kK / 4)) * 4;
    const int bytes = r < len ? 16 : 0;
    const int64_t off = (row0 + (r < len ? r : 0)) * kK + c;
    cp_async_16(sm.kb + r * kLd + c, p.kb + off, bytes);
    cp_async_16(sm.qg + r * kLd + c, p.qg + off, bytes);
    cp_async_16(sm.kend + r * kLdKend + c, p.kend + off, bytes);
  }
  for (int idx = tid; idx < kC * (kC / 4); idx += kThreads) {
    const int r = idx / (kC / 4), c = (idx % (kC / 4)) * 4;
    const int bytes = r < len ? 16 : 0;
    const int64_t off = (row0 + (r < len ? r : 0)) * kC + c;
    cp_async_16(sm.t + r * kLdC + c, p.tinv + off, bytes);
    cp_async_16(sm.m + r * kLdC + c, p.mqk + off, bytes);
  }
  if (tid < kK / 4) cp_async_16(sm.gamma + tid * 4, p.gamma + (int64_t(hk) * p.slots + slot) * kK + tid * 4, 16);
  cp_async_wait_all();
}

// State slice [K][kSliceV] <-> global [V][K] (K contiguous), through shared memory.
__device__ void load_state(const float* src, Smem& sm) {
  for (int idx = threadIdx.x; idx < kSliceV * (kK / 4); idx += kThreads) {
    const int n = idx / (kK / 4), k = (idx % (kK / 4)) * 4;
    float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
    if (src) x = *reinterpret_cast<const float4*>(src + n * kK + k);
    sm.s[(k + 0) * kLdS + n] = x.x;
    sm.s[(k + 1) * kLdS + n] = x.y;
    sm.s[(k + 2) * kLdS + n] = x.z;
    sm.s[(k + 3) * kLdS + n] = x.w;
  }
}
__device__ void store_state(const Smem& sm, float* dst) {
  for (int idx = threadIdx.x; idx < kSliceV * (kK / 4); idx += kThreads) {
    const int n = idx / (kK / 4), k = (idx % (kK / 4)) * 4;
    *reinterpret_cast<float4*>(dst + n * kK + k) =
        make_float4(sm.s[(k + 0) * kLdS + n], sm.s[(k + 1) * kLdS + n], sm.s[(k + 2) * kLdS + n],
                    sm.s[(k + 3) * kLdS + n]);
  }
}

__global__ void __launch_bounds__(kThreads, 1) state_pass_kernel(const StatePassParams p) {
  extern __shared__ float4 smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(smem_raw);
  const int s = blockIdx.x / kSlices, slice = blockIdx.x % kSlices;
  const int h = blockIdx.y, hk = h / (p.Hv / p.Hq);
  const int v0 = slice * kSliceV;
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  const SeqBounds sb = seq_bounds(p.seq, s);
  const int64_t state_off = (int64_t(s) * p.Hv + h) * kV * kK + int64_t(v0) * kK;

  load_state(p.initial_state ? p.initial_state + state_off : nullptr, sm);
  __syncthreads();

  // This warp's state rows (key channels) in the S1 product: 16 * warp + {g, g + 8}.
  const int srow = 16 * warp + g;
  float state[4][4];
#pragma unroll
  for (int nt = 0; nt < 4; ++nt) {
    state[nt][0] = sm.s[srow * kLdS + 8 * nt + 2 * t];
    state[nt][1] = sm.s[srow * kLdS + 8 * nt + 2 * t + 1];
    state[nt][2] = sm.s[(srow + 8) * kLdS + 8 * nt + 2 * t];
    state[nt][3] = sm.s[(srow + 8) * kLdS + 8 * nt + 2 * t + 1];
  }

  // This warp's tile in the [64][kSliceV] products: rows 16 * mt, columns 8 * nt0 .. 8 * nt0 + 15.
  const int mt = warp >> 1, nt0 = (warp & 1) * 2;
  const int64_t nchunks = (sb.eos - sb.bos + kC - 1) / kC;
  for (int64_t c = 0; c < nchunks; ++c) {
    const int64_t t0 = sb.bos + c * kC;
    const int len = int((sb.eos - t0 < kC ? sb.eos - t0 : int64_t(kC)));
    const int64_t slot = sb.bos / kC + s + c;
    load_factors(p, hk, t0, len, slot, sm);

    // w * v at this thread's accumulator positions (zero past the chunk's end).
    float wv[2][4];
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = 16 * mt + g + 8 * half;
        float2 prod = make_float2(0.f, 0.f);
        if (row < len) {
          const int64_t off = ((t0 + row) * p.Hv + h) * kV + v0 + 8 * (nt0 + j) + 2 * t;
          const uint32_t vv = *reinterpret_cast<const uint32_t*>(p.v + off);
          const uint32_t ww = *reinterpret_cast<const uint32_t*>(p.w + off);
          prod.x = bf16_to_float(uint16_t(vv & 0xffffu)) * bf16_to_float(uint16_t(ww & 0xffffu));
          prod.y = bf16_to_float(uint16_t(vv >> 16)) * bf16_to_float(uint16_t(ww >> 16));
        }
        wv[j][2 * half] = prod.x;
        wv[j][2 * half + 1] = prod.y;
      }
    __syncthreads();  // factors landed; the state copy of the previous chunk is complete

    // R = w*v - Kb S
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      mma_tf32(acc, sm.kb + 16 * mt * kLd, kLd, 1, sm.s + 8 * (nt0 + j), kLdS, 1, kK / 8, lane);
      float* dst = sm.r + 16 * mt * kLdS + 8 * (nt0 + j) + 2 * t;
      dst[g * kLdS] = wv[j][0] - acc[0];
      dst[g * kLdS + 1] = wv[j][1] - acc[1];
      dst[(g + 8) * kLdS] = wv[j][2] - acc[2];
      dst[(g + 8) * kLdS + 1] = wv[j][3] - acc[3];
    }
    __syncthreads();

    // U = T R (T is lower triangular: columns past this row block are zero)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      mma_tf32(acc, sm.t + 16 * mt * kLdC, kLdC, 1, sm.r + 8 * (nt0 + j), kLdS, 1, 2 * (mt + 1), lane);
      float* dst = sm.u + 16 * mt * kLdS + 8 * (nt0 + j) + 2 * t;
      dst[g * kLdS] = acc[0];
      dst[g * kLdS + 1] = acc[1];
      dst[(g + 8) * kLdS] = acc[2];
      dst[(g + 8) * kLdS + 1] = acc[3];
    }
    __syncthreads();

    // O = scale (Qg S + M U)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      mma_tf32(acc, sm.qg + 16 * mt * kLd, kLd, 1, sm.s + 8 * (nt0 + j), kLdS, 1, kK / 8, lane);
      mma_tf32(acc, sm.m + 16 * mt * kLdC, kLdC, 1, sm.u + 8 * (nt0 + j), kLdS, 1, 2 * (mt + 1), lane);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = 16 * mt + g + 8 * half;
        if (row < len) {
          const int64_t off = ((t0 + row) * p.Hv + h) * kV + v0 + 8 * (nt0 + j) + 2 * t;
          const uint32_t packed = uint32_t(float_to_bf16(p.scale * acc[2 * half])) |
                                  (uint32_t(float_to_bf16(p.scale * acc[2 * half + 1])) << 16);
          *reinterpret_cast<uint32_t*>(p.out + off) = packed;
        }
      }
    }

    // S1 = gamma * S + Kend^T U, rows 16 * warp .. + 15 of the state, all kSliceV columns
    const float gamma_lo = sm.gamma[srow], gamma_hi = sm.gamma[srow + 8];
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      mma_tf32(acc, sm.kend + 16 * warp, 1, kLdKend, sm.u + 8 * nt, kLdS, 1, kC / 8, lane);
      state[nt][0] = gamma_lo * state[nt][0] + acc[0];
      state[nt][1] = gamma_lo * state[nt][1] + acc[1];
      state[nt][2] = gamma_hi * state[nt][2] + acc[2];
      state[nt][3] = gamma_hi * state[nt][3] + acc[3];
    }
    __syncthreads();  // every warp is done reading the old state and this chunk's factors
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
      sm.s[srow * kLdS + 8 * nt + 2 * t] = state[nt][0];
      sm.s[srow * kLdS + 8 * nt + 2 * t + 1] = state[nt][1];
      sm.s[(srow + 8) * kLdS + 8 * nt + 2 * t] = state[nt][2];
      sm.s[(srow + 8) * kLdS + 8 * nt + 2 * t + 1] = state[nt][3];
    }
  }
  if (p.final_state) {
    __syncthreads();
    store_state(sm, p.final_state + state_off);
  }
}

}  // namespace

int launch_state_pass(const StatePassParams& p, Stream stream) {
  const int smem = int(sizeof(Smem));
  static std::atomic<uint64_t> smem_set{0};
  const int err = allow_dynamic_smem(state_pass_kernel, smem, smem_set);
  if (err != 0) return err;
  const dim3 grid(unsigned(p.seq.N) * kSlices, unsigned(p.Hv));
  state_pass_kernel<<<grid, kThreads, smem, reinterpret_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}

}  // namespace gdn2::kernels
