// Phase 2 with one consumer warpgroup of 64 value channels per CTA (state_pass_rs.cuh): two CTAs per
// (sequence, value head), for problems whose CTAs fit in one wave this way but not with 32-channel
// slices.
#include "kernels/state_pass_rs.cuh"

namespace gdn2::kernels {
int launch_state_pass_v64(const StatePassParams& p, Stream stream) { return launch_state_pass_rs<1>(p, stream); }
}  // namespace gdn2::kernels
