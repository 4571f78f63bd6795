// Phase 2 with two consumer warpgroups of 64 value channels each (state_pass_rs.cuh): one CTA per
// (sequence, value head), which copies and reads each chunk's factors once for all 128 channels;
// for problems of more than one wave of 64-channel slices.
#include "kernels/state_pass_rs.cuh"

namespace gdn2::kernels {
int launch_state_pass_v128(const StatePassParams& p, Stream stream) { return launch_state_pass_rs<2>(p, stream); }
}  // namespace gdn2::kernels
