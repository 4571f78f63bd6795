// The fused path's pair form (fused.cuh): two CTAs per (sequence, value head), 64 value channels
// each, one consumer warpgroup each, as a cluster that shares the head's key side (each CTA forms
// every other block); for problems whose CTAs fit in one wave.
#include "kernels/fused.cuh"

namespace gdn2::kernels {
int launch_fused_v64(const RecurrentParams& p, Stream stream) { return launch_fused<1, 2>(p, stream); }
#ifdef GDN2_PHASE1_TIMELINE
int fused_timeline_v64(long long* fields) { return fused::fused_timeline_here(fields); }
#endif
}  // namespace gdn2::kernels
