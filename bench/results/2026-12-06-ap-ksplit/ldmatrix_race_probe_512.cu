// Written after call 3, NOT YET RUN: the pair-form split's racecheck report (README, "The pair
// form's split") against a probe closer to the kernel than ldmatrix_race_probe.cu, which was clean.
// Differences from that probe, each a mode bit, so that the run shows which one racecheck needs:
//   bit 0: the barrier id in a register (the kernel: bar.sync R, 0x80) instead of an immediate;
//   bit 1: 512 threads, the pattern on warps 8-11 with a 128-thread barrier (the kernel's solver 0),
//          instead of a 128-thread CTA whose barrier covers every thread;
//   bit 2: dynamic shared memory, the tile at the kernel's offset 0x31000 (the staging tile).
// Each warp w of the four reads rows 0-15 of a 16 x 132 fp32 tile by ldmatrix.x4 at columns
// 32 w .. + 31 (the split's loads), then the barrier, then stores float4 partials over the tile
// as [warp][quarter][lane], then the barrier, then reads them back (the split's exchange).
// usage: compute-sanitizer --tool racecheck --racecheck-report all ./probe MODE   (MODE 0..7)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
constexpr int kLd = 132;
__device__ __forceinline__ void ldsm4(uint32_t (&r)[4], const float* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(uint32_t(__cvta_generic_to_shared(p))));
}
__device__ __forceinline__ void sync4(int mode, int id) {
  if (mode & 1) asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory");
  else asm volatile("bar.sync 2, 128;\n" ::: "memory");
}
__global__ void probe(int mode, float* out) {
  extern __shared__ __align__(1024) float dyn[];
  __shared__ __align__(128) float fixed[16 * kLd];
  float* tile = (mode & 4) ? dyn + 0x31000 / 4 : fixed;
  const int first = (mode & 2) ? 256 : 0;  // the pattern's first thread
  for (int i = threadIdx.x; i < 16 * kLd; i += blockDim.x) tile[i] = float(i);
  __syncthreads();
  const int c = threadIdx.x - first;
  if (c < 0 || c >= 128) return;  // other warps leave (the kernel's other roles)
  const int warp = c / 32, lane = c % 32, id = 2 + (out == nullptr);  // id: 2, unknown to the compiler
  float acc = 0.f;
  for (int half = 0; half < 2; ++half) {
    uint32_t r[4];
    ldsm4(r, tile + (8 * half + (lane & 7)) * kLd + 4 * (lane >> 3) + 32 * warp);
    acc += __uint_as_float(r[0]) + __uint_as_float(r[1]) + __uint_as_float(r[2]) + __uint_as_float(r[3]);
  }
  sync4(mode, id);
  float4* buf = reinterpret_cast<float4*>(tile);
  for (int q = 0; q < 4; ++q) buf[(4 * warp + q) * 32 + lane] = make_float4(acc, acc + 1.f, acc + 2.f, acc + 3.f);
  sync4(mode, id);
  for (int w = 0; w < 4; ++w) acc += buf[(4 * w + warp) * 32 + lane].x;
  out[c] = acc;
}
int main(int argc, char** argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : 0;
  const int threads = (mode & 2) ? 512 : 128, dyn = (mode & 4) ? 0x31000 + 16 * kLd * 4 : 0;
  float* out;
  cudaMalloc(&out, 128 * sizeof(float));
  if (dyn > 48 * 1024) cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
  probe<<<1, threads, dyn>>>(mode, out);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("mode %d (register id %d, 512 threads %d, dynamic smem %d): %s\n", mode, mode & 1, (mode >> 1) & 1,
         (mode >> 2) & 1, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
