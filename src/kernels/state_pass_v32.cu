// Phase 2 with 32-channel value slices (4 CTAs per (sequence, value head)).
#include "kernels/state_pass.cuh"

namespace gdn2::kernels {
template int launch_state_pass<32>(const StatePassParams& p, Stream stream);
}  // namespace gdn2::kernels
