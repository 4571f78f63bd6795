// Phase 2 as state_pass_v128.cu, reading the factor block's rows in fp16 (state_pass_rs.cuh,
// kHalfRows): for MHA problems past one wave of 64-channel slices, where the pass reads the factor
// blocks at HBM speed.
#include "kernels/state_pass_rs.cuh"

namespace gdn2::kernels {
int launch_state_pass_v128_half(const StatePassParams& p, Stream stream) { return launch_state_pass_rs<2, true>(p, stream); }
}  // namespace gdn2::kernels
