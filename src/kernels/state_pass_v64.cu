// Phase 2 with 64-channel value slices (2 CTAs per (sequence, value head)).
#include "kernels/state_pass.cuh"

namespace gdn2::kernels {
template int launch_state_pass<64>(const StatePassParams& p, Stream stream);
}  // namespace gdn2::kernels
