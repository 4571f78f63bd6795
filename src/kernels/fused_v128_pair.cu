// The fused path's GVA pair (fused.cuh): one CTA per (sequence, value head) with two consumer
// warpgroups, as in fused_v128.cu, and the two value heads of a key head (GVA groups of an even
// number of value heads) as a cluster that shares their key side: each CTA forms every other
// block and copies it into the other; each CTA's consumers read their own head's v and w. On more
// sequences than its persistent form takes (kernel_params.h, fused_gva_pair_persistent).
#include "kernels/fused.cuh"

namespace gdn2::kernels {
int launch_fused_v128_pair(const RecurrentParams& p, Stream stream) { return launch_fused<2, 2>(p, stream); }
#ifdef GDN2_PHASE1_TIMELINE
int fused_timeline_v128_pair(long long* fields) { return fused::fused_timeline_here(fields); }
#endif
}  // namespace gdn2::kernels
