// CPU references for the GDN2 forward (see docs/algorithm.md).
//  - tokenwise_f64: the recurrence itself, token by token, in fp64. The ground truth.
//  - chunked_f32:   the chunked algorithm exactly as the GPU kernels run it (same chunking,
//                   per-token decay factors and running products of them, block split, inverse),
//                   in fp32. It records the largest decay factor ever formed, which proves the
//                   bound factor <= 1 (nothing can overflow) without a GPU.
#pragma once

#include <cstdint>

namespace gdn2::reference {

// Packed variable-length problem; every tensor is dense row-major, values already widened to
// float (bf16 inputs are exactly representable).
struct Problem {
  int64_t T = 0;
  int N = 0, Hq = 0, Hv = 0, K = 128, V = 128;
  const int64_t* cu_seqlens = nullptr;      // [N + 1]
  const float* q = nullptr;                 // [T, Hq, K]
  const float* k = nullptr;                 // [T, Hq, K]
  const float* g = nullptr;                 // [T, Hq, K]
  const float* b = nullptr;                 // [T, Hq, K]
  const float* v = nullptr;                 // [T, Hv, V]
  const float* w = nullptr;                 // [T, Hv, V]
  const float* initial_state = nullptr;     // [N, Hv, V, K] or null (zeros)
  float scale = 0.0f;
};

// out: [T, Hv, V]; final_state: [N, Hv, V, K] or null. threads <= 0: hardware concurrency.
void tokenwise_f64(const Problem& p, double* out, double* final_state, int threads = 0);

// What chunked_f32 saw of its decay factors: every d and every running product it formed (Qg/Kb/
// gamma, Kend, Left, Right, the diagonal blocks' column products).
struct ChunkedStats {
  double max_factor = 0;          // largest decay factor formed anywhere (must be <= 1)
  int64_t exp2_calls = 0;         // one per token, key head and key channel: exactly T * Hq * K
  bool nonfinite_factor = false;  // a NaN or Inf factor appeared (must stay false)
  // Which path formed A and M, per chunk and key head: mid-block references (factors up to
  // max_mid_scale = the largest 1 / P(i, p) applied, at most 2^64 by the path's rule) or the
  // exact running products (every factor in [0, 1]).
  int64_t mid_chunks = 0, exact_chunks = 0;
  double max_mid_scale = 0;
};

// The format of the tensor-core operands, emulated: kFp32 keeps every value in fp32 (the algorithm
// alone); kTf32 rounds them as the GPU kernels do (phase 1's left and right factors, the factor
// block Qg, Kb, Kend, T, M, and phase 2's S, R, U where they enter a product, all to TF32, round to
// nearest, ties to even; fp32 accumulation); kBf16 is the what-if of phase 2 on bf16 operands (the
// factor block and S, R, U rounded to bf16 instead, ties to even); kFp16Scaled is the what-if of
// phase 2 on fp16 operands with a power-of-two scale per product row or column (one scale per
// token of Qg and Kb, per row of T and M, per key channel of Kend, per value channel of S, R and U:
// the groups whose scale a wgmma result can take back per row or column), each group's largest
// magnitude scaled into [2^14, 2^15), then rounded to fp16 (10 mantissa bits, ties to even,
// subnormals below 2^-14).
enum class OperandFormat { kFp32, kTf32, kBf16, kFp16Scaled };
// TF32 as the kernels round it (cvt.rn.tf32.f32, src/kernels/device_common.cuh): 10 mantissa bits,
// round to nearest, ties to even, the low 13 bits cleared; infinities and NaNs unchanged.
// tests/gpu/tf32_rounding.cu checks it against the GPU.
float round_tf32(float x);
struct Emulation {
  OperandFormat operands = OperandFormat::kFp32;
  // What-if: every product of the inverse T = (I + A)^{-1} on TF32 operands (the kernels form it in
  // fp32 on the CUDA cores; tensor cores would round A and T where they enter a product).
  bool tf32_inverse = false;
  // What-if: the two products that feed only the output, Qg S and M U, with their operands rounded
  // once more to this format (kFp32: not at all), as 16-bit wgmma would take them: kBf16, or
  // kFp16Scaled with a power-of-two scale per row of Qg and M and per value channel of S and U.
  // Every product that feeds the state keeps `operands`.
  OperandFormat output_products = OperandFormat::kFp32;
  // What-if: the chain's first product one chunk ahead (docs/performance.md, "The first product
  // one block ahead"): from a sequence's second chunk on, Kb_c S_c is formed as
  // (Kb_c diag(gamma_{c-1})) S_{c-1} + C_{c-1} U_{c-1} with C_{c-1} = Kb_c Kend_{c-1}^T, from the
  // previous chunk's state and U as they entered its products; Kb_c gamma_{c-1} and C_{c-1} (fp32
  // sums of its operands) rounded to `operands`' format as they enter the products. The output's
  // Qg S and the state update keep their products. With kFp16Scaled `operands`, not emulated.
  bool lookahead = false;
  // What-if: the state's chain as one product per chunk (docs/performance.md, "The 32-channel
  // pass's schedule", steps 7 and 8: as accurate as the chain; no faster in a timing probe):
  // S1 = gamma S0 + A S0 + Kend^T Y and O = scale (Q' S0 + M Y), with A = -Kend^T (T Kb) and
  // Q' = Qg - M (T Kb) formed from the factors as a phase 1 would (fp32 sums of the factors'
  // operands, `operands`' format as they enter the next product) and Y = T (w.v) beside the
  // chain. Not with kFp16Scaled `operands` nor with `lookahead`.
  bool one_product = false;
};

// out: [T, Hv, V]; final_state: [N, Hv, V, K] or null; stats may be null.
void chunked_f32(const Problem& p, float* out, float* final_state, ChunkedStats* stats,
                 Emulation emulation = {});

}  // namespace gdn2::reference
