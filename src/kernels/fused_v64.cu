// The fused path with one consumer warpgroup (fused.cuh): two CTAs per (sequence, value head), 64
// value channels each; for problems whose CTAs fit in one wave.
#include "kernels/fused.cuh"

namespace gdn2::kernels {
int launch_fused_v64(const RecurrentParams& p, Stream stream) { return launch_fused<1>(p, stream); }
}  // namespace gdn2::kernels
