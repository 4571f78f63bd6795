// Written after call 4, NOT YET RUN: does racecheck report a write and a read that a `bar.sync
// id, 64` of two non-adjacent warps orders? ks4 and ks4e (README, calls 3 and 4) were reported
// between warp 1's (or 0's) write of its partials and warp 3's (or 2's) read of them behind such a
// barrier; ks2, whose pairs were adjacent warps, was clean. The pattern runs on warps 8-11 of 512
// threads (the pair form's solver 0), barrier ids in registers, the partials as [warp][2][lane]
// float4 (`Smem::ap_part`), `kIters` blocks each behind a barrier of the four warps:
//   mode 0: one swap between adjacent warps (w, w ^ 1), named barriers 9 and 10 (ks2's shape);
//   mode 1: one swap between warps w and w ^ 2 (ks4's first swap alone);
//   mode 2: both of ks4's swaps, w and w ^ 2, then w and w ^ 1 over part[w ^ 2][0] (ks4e);
//   mode 3: mode 2 for one block, without the barrier of the four warps.
// Every mode is race-free by construction; the host checks the values against a serial replay.
// A report in modes 1-3 and none in mode 0 would make the kernel's report racecheck's, not a fault.
// build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o probe pair_barrier_race_probe.cu
// usage: compute-sanitizer --tool racecheck --racecheck-report all ./probe MODE   (MODE 0..3)
#include <cmath>
#include <cstdio>
#include <cstdlib>

constexpr int kIters = 4;
constexpr int kFirst = 256;  // the pattern's first thread

// The probe's partial of warp w, lane l, element e in block it (also the host's replay).
__host__ __device__ inline float seed(int w, int l, int e, int it) { return float(1 + w + 4 * l + 128 * e + 512 * it); }

__global__ void probe(int mode, float* out) {
  __shared__ float4 part[4][2][32];
  const int c = threadIdx.x - kFirst;
  if (c < 0 || c >= 128) return;  // the kernel's other roles
  const int warp = c / 32, lane = c % 32;
  const int salt = out == nullptr;  // 0, unknown to the compiler: the ids live in registers
  const int all = 2 + salt;
  const int first = 9 + salt + (mode == 0 ? warp >> 1 : warp & 1);
  const int second = (warp < 2 ? 3 : 7) + salt;
  const int peer = mode == 0 ? warp ^ 1 : warp ^ 2;
  float acc = 0.f;
  for (int it = 0; it < (mode == 3 ? 1 : kIters); ++it) {
    if (mode != 3) asm volatile("bar.sync %0, 128;\n" ::"r"(all) : "memory");
    part[warp][0][lane] = make_float4(seed(warp, lane, 0, it), 0.f, 0.f, 0.f);
    part[warp][1][lane] = make_float4(seed(warp, lane, 1, it), 0.f, 0.f, 0.f);
    asm volatile("bar.sync %0, 64;\n" ::"r"(first) : "memory");
    acc += part[peer][0][lane].x + 2.f * part[peer][1][lane].x;
    if (mode >= 2) {
      part[warp ^ 2][0][lane] = make_float4(acc, 0.f, 0.f, 0.f);  // over the peer's partials, read only here
      asm volatile("bar.sync %0, 64;\n" ::"r"(second) : "memory");
      acc += 3.f * part[warp ^ 3][0][lane].x;
    }
  }
  out[c] = acc;
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : 0;
  if (mode < 0 || mode > 3) {
    fprintf(stderr, "MODE must be 0..3, got %d\n", mode);
    return 2;
  }
  float* out;
  cudaMalloc(&out, 128 * sizeof(float));
  probe<<<1, 512>>>(mode, out);
  const cudaError_t e = cudaDeviceSynchronize();
  float got[128];
  cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost);
  // Serial replay: each block's swaps in the order the barriers impose.
  float acc[4][32] = {};
  for (int it = 0; it < (mode == 3 ? 1 : kIters); ++it) {
    float sent[4][32];
    for (int w = 0; w < 4; ++w)
      for (int l = 0; l < 32; ++l) {
        const int peer = mode == 0 ? w ^ 1 : w ^ 2;
        acc[w][l] += seed(peer, l, 0, it) + 2.f * seed(peer, l, 1, it);
        sent[w][l] = acc[w][l];  // warp w's write of part[w ^ 2][0]
      }
    if (mode >= 2)
      for (int w = 0; w < 4; ++w)
        for (int l = 0; l < 32; ++l) acc[w][l] += 3.f * sent[w ^ 1][l];  // part[w ^ 3][0], written by w ^ 1
  }
  int bad = 0;
  for (int c = 0; c < 128; ++c) bad += std::fabs(got[c] - acc[c / 32][c % 32]) > 0.f;
  printf("mode %d: %s, %d of 128 values differ from the serial replay\n", mode, cudaGetErrorString(e), bad);
  cudaFree(out);
  return e == cudaSuccess && bad == 0 ? 0 : 1;
}
