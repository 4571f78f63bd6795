// Phase 2 with 32-channel value slices (4 CTAs per (sequence, value head)), every operand in shared
// memory (state_pass_ss.cuh): for problems whose CTAs fit in one wave.
#include "kernels/state_pass_ss.cuh"

namespace gdn2::kernels {
int launch_state_pass_v32(const StatePassParams& p, Stream stream) { return launch_state_pass_ss<32>(p, stream); }
}  // namespace gdn2::kernels
