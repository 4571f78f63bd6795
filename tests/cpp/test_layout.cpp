// The K-major operand layout (src/kernels/kernel_params.h) against what the wgmma descriptors of
// src/kernels/wgmma.cuh assume of it, the k permutation that lets phase 2 feed accumulators as A
// operands (checked on a CPU model of wgmma's register fragments), the factor block's split
// into bulk copies, the swizzled v/w/output tiles of the register-state pass, and the fused path's
// swizzled [Kb; Qg] operand.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/kernel_params.h"

namespace gdn2::kernels {
namespace {

struct Shape {
  int rows, K;
};
// Every B operand shape the kernels use: Kb and Qg [64][128], T and M [64][64], Kend^T [128][64].
const Shape kShapes[] = {{64, 128}, {64, 64}, {128, 64}};

TEST(KMajorLayout, EveryElementHasItsOwnSlot) {
  for (const Shape& s : kShapes) {
    std::vector<int> hits(size_t(s.rows) * s.K, 0);
    for (int r = 0; r < s.rows; ++r)
      for (int k = 0; k < s.K; ++k) {
        const int off = kmajor_offset(r, k, s.K);
        ASSERT_GE(off, 0);
        ASSERT_LT(off, s.rows * s.K);
        ++hits[size_t(off)];
      }
    for (int h : hits) EXPECT_EQ(h, 1) << "shape " << s.rows << "x" << s.K;
  }
}

TEST(KMajorLayout, CoreMatricesAndStridesMatchTheDescriptor) {
  for (const Shape& s : kShapes) {
    for (int r = 0; r < s.rows; ++r)
      for (int k = 0; k < s.K; ++k) {
        const int off = kmajor_offset(r, k, s.K);
        const int core = kmajor_offset(r & ~7, k & ~3, s.K);  // first element of its core matrix
        // a core matrix: 8 rows of 4 consecutive values, 16 bytes per row, 128 contiguous bytes
        EXPECT_EQ(off - core, (r & 7) * 4 + (k & 3));
        EXPECT_EQ(core % 32, 0);
        if ((k & 7) < 4)  // the second core matrix of a k-step: LBO further on
          EXPECT_EQ(kmajor_offset(r, k + 4, s.K) - off, kmajor::kLboBytes / 4);
        if (r + 8 < s.rows)  // the next 8-row group: SBO further on
          EXPECT_EQ(kmajor_offset(r + 8, k, s.K) - off, kmajor::sbo_bytes(s.K) / 4);
        if (k + 8 < s.K)  // the next k-step starts kStepBytes further on
          EXPECT_EQ(kmajor_offset(r, k + 8, s.K) - off, kmajor::kStepBytes / 4);
      }
  }
}

TEST(FactorLayout, KPositionIsAPermutationWithinEachKStep) {
  for (int k = 0; k < 128; ++k) {
    EXPECT_EQ(k_position(k) / 8, k / 8);
    EXPECT_EQ(k_at_position(k_position(k)), k);
    EXPECT_EQ(k_position(k_at_position(k)), k);
  }
  // accumulator columns 2t, 2t + 1 of thread t feed A columns t, t + 4
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(k_position(2 * t), t);
    EXPECT_EQ(k_position(2 * t + 1), t + 4);
  }
}

// A CPU model of one m64 x N x K product on the tensor cores, A from registers: every thread's A
// fragments are taken from its accumulator elements (a_from_acc), B is read at the descriptor's
// k positions of a factor stored with factor_offset. The result must be the plain product
// X B^T, where X is the accumulator as a matrix [64][K] and B the factor as a matrix [N][K].
TEST(FactorLayout, AccumulatorAsAOperandTimesPermutedFactorIsTheProduct) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-4, 4);  // exact in float
  for (const Shape& b : kShapes) {
    const int N = b.rows, K = b.K;
    std::vector<float> x(size_t(64) * K), bl(size_t(N) * K), stored(size_t(N) * K);
    for (float& v : x) v = float(small(rng));
    for (float& v : bl) v = float(small(rng));
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) stored[size_t(factor_offset(n, k, K))] = bl[size_t(n) * K + k];
    // accumulator element i of thread (w, g, t): (16 w + g + 8 h, 8 j + 2 t + e), i = 4 j + 2 h + e
    auto acc_elem = [&](int w, int g, int t, int i) {
      const int j = i / 4, h = (i / 2) % 2, e = i % 2;
      return x[size_t(16 * w + g + 8 * h) * K + 8 * j + 2 * t + e];
    };
    std::vector<float> d(size_t(64) * N, 0.f);
    for (int s = 0; s < K / 8; ++s)
      for (int w = 0; w < 4; ++w)
        for (int g = 0; g < 8; ++g)
          for (int t = 0; t < 4; ++t)
            for (int r = 0; r < 4; ++r) {
              // register r of the A fragment sits at (16 w + g + 8 (r & 1), k position 8 s + t + 4 (r >> 1))
              const int m = 16 * w + g + 8 * (r & 1), pos = 8 * s + t + 4 * (r >> 1);
              const float a = acc_elem(w, g, t, a_from_acc(s, r));
              for (int n = 0; n < N; ++n) d[size_t(m) * N + n] += a * stored[size_t(kmajor_offset(n, pos, K))];
            }
    for (int m = 0; m < 64; ++m)
      for (int n = 0; n < N; ++n) {
        float want = 0.f;
        for (int k = 0; k < K; ++k) want += x[size_t(m) * K + k] * bl[size_t(n) * K + k];
        ASSERT_EQ(d[size_t(m) * N + n], want) << "B " << N << "x" << K << " at (" << m << ", " << n << ")";
      }
  }
}

TEST(FactorBlock, GroupsSplitIntoAlignedCopiesAndOperandsStartAligned) {
  // Phase 2 copies [kKb, kT), [kT, kM) and [kM, kFloats) with one bulk copy each, or T and M by row
  // group of the packed format and [kKendT, kFloats) with one (16-byte sizes); every operand starts
  // 16-byte aligned, as wgmma descriptors and the copies require.
  const int starts[] = {factor_block::kKb, factor_block::kQg, factor_block::kT, factor_block::kM,
                        factor_block::kKendT, factor_block::kGamma, factor_block::kFloats};
  for (int s : starts) EXPECT_EQ(s % 4, 0);
  for (int rg = 0; rg <= factor_block::kRowGroups; ++rg) EXPECT_EQ(factor_block::triangle_group_offset(rg) % 4, 0);
  EXPECT_EQ(factor_block::kQg - factor_block::kKb, kChunk * kHeadDimK);
  EXPECT_EQ(factor_block::kM - factor_block::kT, kChunk * kChunk);
  EXPECT_EQ(factor_block::kKendT - factor_block::kM, kChunk * kChunk);
  EXPECT_LE(factor_block::kTriangleFloats, kChunk * kChunk);  // the packed format fits in the slot
  EXPECT_EQ(factor_block::kFloats - factor_block::kGamma, kHeadDimK);
}

// T and M in the packed format: row group rg keeps the core matrices of columns k < 8 (rg + 1), and
// phase 2 copies them to rg * 8 * 64 in the full layout. Every element on or below the diagonal
// (k <= row) must be among them, each stored once, at the place the full layout gives it; the
// full layout's other places are the ones phase 2 zeroes.
TEST(FactorBlock, PackedTrianglesHoldEveryElementOnOrBelowTheDiagonalOnce) {
  constexpr int C = kChunk;
  std::vector<int> packed(factor_block::kTriangleFloats, 0);
  for (int row = 0; row < C; ++row)
    for (int k = 0; k < C; ++k) {
      const int full = factor_offset(row, k, C), rg = full / (8 * C), within = full % (8 * C);
      ASSERT_EQ(rg, row / 8);
      const bool stored = within < factor_block::triangle_group_floats(rg);
      if (k <= row) EXPECT_TRUE(stored) << "(" << row << ", " << k << ")";
      if (stored) {
        EXPECT_LT(k / 8, rg + 1) << "stored columns stay within the row group's 8-column diagonal block";
        ++packed[size_t(factor_block::triangle_group_offset(rg) + within)];
      }
    }
  for (int n : packed) EXPECT_EQ(n, 1);
}

// The tiles of state_pass_rs.cuh: TMA writes them in its 128-byte swizzle (byte address bits 4..6
// XOR bits 7..9, CU_TENSOR_MAP_SWIZZLE_128B), and the consumers read them through
// swizzled_tile_offset, so the two must agree element for element.
TEST(SwizzledTile, MatchesTheTmaSwizzleAndKeepsPartsWhole) {
  std::vector<int> hits(64 * kTileChannels, 0);
  for (int tok = 0; tok < 64; ++tok)
    for (int ch = 0; ch < kTileChannels; ++ch) {
      const int off = swizzled_tile_offset(tok, ch);
      ASSERT_GE(off, 0);
      ASSERT_LT(off, 64 * kTileChannels);
      ++hits[size_t(off)];
      const int linear = 2 * (tok * kTileChannels + ch);  // bytes, row-major as in global memory
      EXPECT_EQ(2 * off, linear ^ (((linear >> 7) & 7) << 4)) << "(" << tok << ", " << ch << ")";
      // a 16-byte part (8 channels) stays contiguous: one 16-byte access per part
      EXPECT_EQ(off - (ch & 7), swizzled_tile_offset(tok, ch & ~7));
    }
  for (int h : hits) EXPECT_EQ(h, 1);
}

// The consumer's two-byte accesses (state_pass_rs.cuh): warp w, lane (g, t) reads or writes element
// (8 j + 2 t + e, 16 w + g + 8 hh) for each (j, hh, e). Each such warp access must touch at most one
// 4-byte word per bank (lanes sharing a word are one access), and so must the 16-byte reads of the
// output stores (eight lanes per row and part, one quarter warp per 128 bytes).
TEST(SwizzledTile, ConsumerAccessesAreFreeOfBankConflicts) {
  for (int w = 0; w < 4; ++w)
    for (int j = 0; j < 8; ++j)
      for (int hh = 0; hh < 2; ++hh)
        for (int e = 0; e < 2; ++e) {
          int word_of_bank[32];
          for (int& x : word_of_bank) x = -1;
          for (int lane = 0; lane < 32; ++lane) {
            const int g = lane >> 2, t = lane & 3;
            const int word = swizzled_tile_offset(8 * j + 2 * t + e, 16 * w + g + 8 * hh) / 2;
            const int bank = word % 32;
            EXPECT_TRUE(word_of_bank[bank] < 0 || word_of_bank[bank] == word)
                << "warp " << w << " j " << j << " hh " << hh << " e " << e << ": bank " << bank;
            word_of_bank[bank] = word;
          }
        }
  for (int tok = 0; tok < 64; ++tok) {  // one quarter warp: the 8 parts of one token row
    bool bank_used[32] = {};
    for (int part = 0; part < 8; ++part) {
      const int word0 = swizzled_tile_offset(tok, 8 * part) / 2;
      for (int b = 0; b < 4; ++b) {
        EXPECT_FALSE(bank_used[(word0 + b) % 32]) << "token " << tok << " part " << part;
        bank_used[(word0 + b) % 32] = true;
      }
    }
  }
}

// The 32-channel pass's stores of R, U (K = 64) and S (K = 128, two warpgroups: row0 0 and 64) into
// B operands: every element of the [32][K] operand written exactly once, by the lane that holds it
// (store i of pair (j, h) writes accumulator element 4 j + 2 h + column), and each warp-level store
// on 32 distinct banks.
TEST(FactorLayout, AccumulatorStoresCoverTheOperandWithoutBankConflicts) {
  for (const int K : {64, 128}) {
    std::vector<int> hits(size_t(32) * K, 0);
    for (int row0 = 0; row0 < K; row0 += 64)
      for (int w = 0; w < 4; ++w)
        for (int j = 0; j < 4; ++j)
          for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 2; ++i) {
              bool bank_used[32] = {};
              for (int lane = 0; lane < 32; ++lane) {
                const int off = acc_store_offset(lane, row0 + 16 * w + (lane >> 2), j, h, i, K);
                const int n = 8 * j + 2 * (lane & 3) + acc_store_column(lane, i);
                const int k = row0 + 16 * w + (lane >> 2) + 8 * h;
                ASSERT_EQ(off, factor_offset(n, k, K));
                ++hits[size_t(off)];
                EXPECT_FALSE(bank_used[off % 32]) << "K " << K << " row0 " << row0 << " warp " << w << " j " << j
                                                   << " h " << h << " store " << i << " lane " << lane;
                bank_used[off % 32] = true;
              }
            }
    for (int x : hits) EXPECT_EQ(x, 1) << "K " << K;
  }
}

// The fused path's [Kb; Qg] operand ([32][128], sw128): every element once; the address wgmma reads
// for it under layout type 1 (16-byte chunk bits 4-6 XORed with bits 7-9 of the byte address, the
// 8-row groups kSboBytes apart, k-step s at step_bytes(s)) is where sw128::offset puts it; a warp's
// store of one row's 32 channels (the producer) and an ldmatrix matrix's 8 rows of one chunk (the
// solver) each touch 32 distinct banks.
TEST(Sw128Layout, MatchesWgmmaSwizzleAndIsFreeOfBankConflicts) {
  constexpr int kRows = 32, kCols = 128;
  std::vector<int> hits(size_t(kRows) * kCols, 0);
  for (int r = 0; r < kRows; ++r)
    for (int k = 0; k < kCols; ++k) {
      const int off = sw128::offset(r, k, kRows);
      ASSERT_GE(off, 0);
      ASSERT_LT(off, kRows * kCols);
      ++hits[size_t(off)];
      const int s = k / 8;  // k-step; within it, byte (k % 8) * 4 of the row's 32 bytes
      const int plain = sw128::step_bytes(s, kRows) + (r / 8) * sw128::kSboBytes + (r % 8) * 128 + (k % 8) * 4;
      const int swizzled = plain ^ (((plain >> 7) & 7) << 4);
      EXPECT_EQ(4 * off, swizzled) << "(" << r << ", " << k << ")";
    }
  for (int h : hits) EXPECT_EQ(h, 1);
  for (int r = 0; r < kRows; ++r)
    for (int k0 = 0; k0 < kCols; k0 += 32) {
      bool bank_used[32] = {};
      for (int k = k0; k < k0 + 32; ++k) {
        const int bank = sw128::offset(r, k, kRows) % 32;
        EXPECT_FALSE(bank_used[bank]) << "row " << r << " channels " << k0;
        bank_used[bank] = true;
      }
    }
  for (int g = 0; g < kRows; g += 8)
    for (int chunk = 0; chunk < kCols / 4; ++chunk) {
      bool quad_used[8] = {};
      for (int r = g; r < g + 8; ++r) {
        const int quad = (sw128::offset(r, 4 * chunk, kRows) / 4) % 8;
        EXPECT_FALSE(quad_used[quad]) << "rows " << g << " chunk " << chunk;
        quad_used[quad] = true;
      }
    }
}

}  // namespace
}  // namespace gdn2::kernels
