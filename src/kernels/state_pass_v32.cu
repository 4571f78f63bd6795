// Phase 2 with 32-channel value slices (4 CTAs per (sequence, value head)), every operand in shared
// memory (state_pass_ss.cuh): for problems whose CTAs fit in one wave. Alongside phase 1 where the
// host asked for it (p.ready), else behind it.
#include "kernels/state_pass_ss.cuh"

namespace gdn2::kernels {
int launch_state_pass_v32(const StatePassParams& p, Stream stream) {
  return p.ready != nullptr ? launch_state_pass_ss_variant<1, true>(p, stream)
                            : launch_state_pass_ss_variant<1, false>(p, stream);
}
}  // namespace gdn2::kernels
