// Phase 2 with 32-channel value slices of two value heads of one GVA group per CTA (products 64
// wide, one copy of each factor block for both heads; state_pass_ss.cuh): half as many CTAs as
// state_pass_v32.cu, so that the pass can run alongside phase 1 on one long GVA sequence. Only
// alongside phase 1 (p.ready set); the host uses it nowhere else.
#include <cuda_runtime.h>

#include "kernels/state_pass_ss.cuh"

namespace gdn2::kernels {
int launch_state_pass_v32_pairs(const StatePassParams& p, Stream stream) {
  if (p.ready == nullptr || p.Hq <= 0 || (p.Hv / p.Hq) % 2 != 0) return int(cudaErrorInvalidValue);
  return launch_state_pass_ss_variant<2, true>(p, stream);
}
}  // namespace gdn2::kernels
