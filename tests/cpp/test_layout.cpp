// The K-major operand layout (src/kernels/kernel_params.h) against what the wgmma descriptors of
// src/kernels/wgmma.cuh assume of it, and the factor block's split into bulk copies.
#include <vector>

#include <gtest/gtest.h>

#include "kernels/kernel_params.h"

namespace gdn2::kernels {
namespace {

struct Shape {
  int rows, K;
};
// Every operand shape the kernels use: Kb and Qg [64][128], T and M [64][64], Kend^T [128][64], and
// phase 2's S [V slice][128], R and U [V slice][64] for slices of 32 and 64 channels.
const Shape kShapes[] = {{64, 128}, {64, 64}, {128, 64}, {32, 128}, {32, 64}};

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

TEST(FactorBlock, GroupsSplitIntoAlignedCopiesAndOperandsStartAligned) {
  // Phase 2 copies [kKb, kT), [kT, kM) and [kM, kFloats) with one bulk copy each (16-byte sizes);
  // every operand starts 16-byte aligned, as wgmma descriptors and the copies require.
  const int starts[] = {factor_block::kKb, factor_block::kQg, factor_block::kT, factor_block::kM,
                        factor_block::kKendT, factor_block::kGamma, factor_block::kFloats};
  for (int s : starts) EXPECT_EQ(s % 4, 0);
  EXPECT_EQ(factor_block::kQg - factor_block::kKb, kChunk * kHeadDimK);
  EXPECT_EQ(factor_block::kKendT - factor_block::kM, kChunk * kChunk);
  EXPECT_EQ(factor_block::kFloats - factor_block::kGamma, kHeadDimK);
}

}  // namespace
}  // namespace gdn2::kernels
