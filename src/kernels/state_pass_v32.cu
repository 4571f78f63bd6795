// Phase 2 with 32-channel value slices (4 CTAs per (sequence, value head)), every operand in shared
// memory (state_pass_ss.cuh): for problems whose CTAs fit in one wave.
#include "kernels/state_pass_ss.cuh"

namespace gdn2::kernels {
int launch_state_pass_v32(const StatePassParams& p, Stream stream) { return launch_state_pass_ss<32>(p, stream); }

#ifdef GDN2_PHASE1_TIMELINE
int read_pass_timeline(long long* marks, long long* start_ns, int* chunks) {
  using namespace state_pass;
  cudaError_t e = cudaMemcpyFromSymbol(marks, g_pass_marks, sizeof(g_pass_marks));
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(start_ns, g_pass_start_ns, sizeof(g_pass_start_ns));
  if (e == cudaSuccess) e = cudaMemcpyFromSymbol(chunks, g_pass_chunks, sizeof(g_pass_chunks));
  return int(e);
}
int reset_pass_timeline() {
  static const int zeros[kPassTimelineCtas] = {};
  return int(cudaMemcpyToSymbol(state_pass::g_pass_chunks, zeros, sizeof(zeros)));
}
#endif
}  // namespace gdn2::kernels
