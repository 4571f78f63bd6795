// The fused path's GVA pair on persistent clusters (fused.cuh, fused_persistent_kernel<2, 2>): on at
// most 256 sequences, a cluster per two SMs takes the (sequence, pair of value heads)
// items in turn, longest sequences first, and runs their blocks as one stream
// (kernel_params.h, fused_gva_pair_persistent).
#include "kernels/fused.cuh"

namespace gdn2::kernels {
int launch_fused_v128_pair_persistent(const RecurrentParams& p, Stream stream) { return launch_fused<2, 2, true>(p, stream); }
#ifdef GDN2_PHASE1_TIMELINE
int fused_timeline_v128_pair_persistent(long long* fields) { return fused::fused_timeline_here(fields); }
#endif
}  // namespace gdn2::kernels
