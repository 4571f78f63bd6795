// The fused path with two consumer warpgroups (fused.cuh): one CTA per (sequence, value head),
// which forms each block's key side once for all 128 value channels; for problems of more than
// one wave of 64-channel CTAs on more sequences than the persistent form takes (kernel_params.h,
// fused_persistent).
#include "kernels/fused.cuh"

namespace gdn2::kernels {
int launch_fused_v128(const RecurrentParams& p, Stream stream) { return launch_fused<2, 1>(p, stream); }
#ifdef GDN2_PHASE1_TIMELINE
int fused_timeline_v128(long long* fields) { return fused::fused_timeline_here(fields); }
#endif
}  // namespace gdn2::kernels
