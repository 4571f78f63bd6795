// The fused path's 128-channel form on persistent CTAs (fused.cuh, fused_persistent_kernel): on at
// most 4,096 sequences, one CTA per SM takes the (sequence, value head) items in turn, longest
// sequences first, and runs their blocks as one stream (kernel_params.h, fused_persistent).
#include "kernels/fused.cuh"

namespace gdn2::kernels {
int launch_fused_v128_persistent(const RecurrentParams& p, Stream stream) { return launch_fused<2, 1, true>(p, stream); }
#ifdef GDN2_PHASE1_TIMELINE
int fused_timeline_v128_persistent(long long* fields) { return fused::fused_timeline_here(fields); }
#endif
}  // namespace gdn2::kernels
