// How fast do the state passes' factor copies land? Each CTA copies one chunk's factor group
// (bulk copies from L2 into shared memory, completing on one mbarrier, as state_pass_rs.cuh's
// producer issues them: Kb/Qg as one copy, T and M as their row groups, Kend^T/gamma as one copy)
// round after round, and times each round from issue to landing in SM cycles. `share` CTAs read the
// same source blocks (the CTAs of one key head), so after the first rounds every read hits L2.
//
// Modes: "plain" (every CTA copies the whole group) and "multicast" (the `share` CTAs form a
// cluster; CTA r issues every share-th copy with .multicast::cluster to all of them, so L2 is read
// once per cluster and each CTA still receives the whole group).
//
// Prints one line per case: CTAs, share, mode, median and 90th-percentile cycles per round, the
// bytes per SM cycle that one CTA receives, and the aggregate rate into shared memory (TB/s, from
// CUDA events around the kernel).
//
// usage: ./gdn2_copy_rate   (needs an sm_90 GPU; exit 2 without one)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/device_common.cuh"

namespace {
using namespace gdn2;

constexpr int kRounds = 48, kWarmRounds = 16;  // rounds timed: kWarmRounds .. kRounds - 1
constexpr int kSlots = 16;                     // chunk slots per source (rounds cycle through them)
// One chunk's factor group as the 64-channel pass copies it (bytes): Kb and Qg (64 x 128 fp32
// each), T and M packed (8 row groups each, 8 x 8 (g + 1) floats), Kend^T (64 x 128) and gamma.
constexpr int kTriangleGroups = 8;
constexpr uint32_t kKqBytes = 2 * 64 * 128 * 4, kKendGammaBytes = (64 * 128 + 128) * 4;
__host__ __device__ constexpr uint32_t group_bytes(int g) { return 8u * 8u * uint32_t(g + 1) * 4u; }
constexpr int kPieces = 1 + 2 * kTriangleGroups + 1;
__host__ __device__ constexpr uint32_t piece_bytes(int i) {
  return i == 0 ? kKqBytes : i == kPieces - 1 ? kKendGammaBytes : group_bytes((i - 1) % kTriangleGroups);
}
__host__ __device__ constexpr uint32_t round_bytes() {
  uint32_t b = 0;
  for (int i = 0; i < kPieces; ++i) b += piece_bytes(i);
  return b;
}
constexpr uint32_t kRoundBytes = round_bytes();

// The multicast form of kernels::bulk_copy (the library's passes do not multicast).
__device__ __forceinline__ void copy_multicast(void* dst, const void* src, uint32_t bytes, uint64_t* bar,
                                               uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;" ::"r"(
          kernels::smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(kernels::smem_u32(bar)), "h"(mask)
      : "memory");
}

// Grid: ctas CTAs of one thread each that issues and waits (the copies need no other threads).
template <bool kMulticast>
__global__ void copy_rounds(const char* src, int share, long long* cycles) {
  extern __shared__ __align__(128) char smem[];
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + kRoundBytes);
  const int source = blockIdx.x / share;
  const int rank = kMulticast ? int(kernels::cluster_rank()) : 0;
  if (threadIdx.x == 0) {
    kernels::mbarrier_init(bar, 1);
    kernels::fence_barrier_init();
  }
  __syncthreads();
  if (kMulticast) kernels::cluster_sync();
  for (int r = 0; r < kRounds; ++r) {
    const char* block = src + (int64_t(source) * kSlots + r % kSlots) * kRoundBytes;
    long long t0 = 0;
    if (threadIdx.x == 0) {
      kernels::mbarrier_expect_bytes(bar, kRoundBytes);
      t0 = clock64();
      uint32_t at = 0;
      for (int i = 0; i < kPieces; ++i) {
        const uint32_t n = piece_bytes(i);
        if (!kMulticast) kernels::bulk_copy(smem + at, block + at, n, bar);
        else if (i % share == rank) copy_multicast(smem + at, block + at, n, bar, uint16_t((1u << share) - 1));
        at += n;
      }
      kernels::mbarrier_wait(bar, uint32_t(r) & 1);
      cycles[int64_t(blockIdx.x) * kRounds + r] = clock64() - t0;
    }
    // Every CTA of the cluster has landed round r before any issues round r + 1 into it.
    if (kMulticast) kernels::cluster_sync();
  }
}

struct Case {
  int ctas, share;
  bool multicast;
};

}  // namespace

int main() {
  int dev_count = 0;
  if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
    std::printf("no GPU\n");
    return 2;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const int sms = prop.multiProcessorCount;
  const size_t smem = kRoundBytes + 16;
  cudaFuncSetAttribute(copy_rounds<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  cudaFuncSetAttribute(copy_rounds<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  // The cases: one CTA alone; the 32-channel pass on S2 (64 CTAs, 4 per key head); the 64-channel
  // pass on S4 (128 CTAs, 8 per key head); every SM with its own source; multicast in clusters of
  // 2, 4 and 8 where CTAs share. "at once": how many of the case's CTAs can be resident together
  // (cudaOccupancyMaxActiveClusters: clusters must fit within a GPC, one CTA per SM here), so
  // that a case whose CTAs do not all fit is seen as such.
  const std::vector<Case> cases = {{1, 1, false},  {16, 1, false},  {64, 4, false},  {64, 4, true},
                                   {64, 2, true},  {128, 8, false}, {128, 2, true},  {128, 4, true},
                                   {128, 8, true},  {sms, 1, false}, {132, 4, false}, {132, 4, true}};
  std::printf("GPU %s, %d SMs, %u bytes per round in %d copies\n", prop.name, sms, kRoundBytes, kPieces);
  std::printf("| CTAs | share | mode | at once | median cycles | p90 cycles | B per SM cycle | aggregate TB/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    if (c.ctas > sms || c.ctas % c.share != 0) continue;
    const int sources = c.ctas / c.share;
    char* src = nullptr;
    long long* cycles = nullptr;
    const size_t src_bytes = size_t(sources) * kSlots * kRoundBytes;
    cudaMalloc(&src, src_bytes);
    cudaMemset(src, 1, src_bytes);
    cudaMalloc(&cycles, sizeof(long long) * c.ctas * kRounds);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(c.ctas));
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = unsigned(c.multicast ? c.share : 1);
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    const cudaError_t occ = c.multicast ? cudaOccupancyMaxActiveClusters(&clusters, copy_rounds<true>, &cfg)
                                        : cudaOccupancyMaxActiveClusters(&clusters, copy_rounds<false>, &cfg);
    const int at_once = occ == cudaSuccess ? std::min(c.ctas, clusters * int(attr.val.clusterDim.x)) : -1;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best_ms = 1e30f;
    for (int rep = 0; rep < 5; ++rep) {
      cudaEventRecord(e0);
      const cudaError_t err = c.multicast ? cudaLaunchKernelEx(&cfg, copy_rounds<true>, (const char*)src, c.share, cycles)
                                          : cudaLaunchKernelEx(&cfg, copy_rounds<false>, (const char*)src, c.share, cycles);
      cudaEventRecord(e1);
      if (err != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess) {
        std::printf("case %d/%d/%d failed: %s\n", c.ctas, c.share, int(c.multicast), cudaGetErrorString(cudaGetLastError()));
        return 1;
      }
      float ms = 0.f;
      cudaEventElapsedTime(&ms, e0, e1);
      best_ms = std::min(best_ms, ms);
    }
    std::vector<long long> host(size_t(c.ctas) * kRounds), timed;
    cudaMemcpy(host.data(), cycles, sizeof(long long) * host.size(), cudaMemcpyDeviceToHost);
    for (int b = 0; b < c.ctas; ++b)
      for (int r = kWarmRounds; r < kRounds; ++r) timed.push_back(host[size_t(b) * kRounds + r]);
    std::sort(timed.begin(), timed.end());
    const long long med = timed[timed.size() / 2], p90 = timed[timed.size() * 9 / 10];
    const double tbs = double(c.ctas) * kRounds * kRoundBytes / (best_ms * 1e-3) / 1e12;
    std::printf("| %d | %d | %s | %d | %lld | %lld | %.1f | %.2f |\n", c.ctas, c.share, c.multicast ? "multicast" : "plain",
                at_once, med, p90, double(kRoundBytes) / double(med), tbs);
    cudaFree(src);
    cudaFree(cycles);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  return 0;
}
