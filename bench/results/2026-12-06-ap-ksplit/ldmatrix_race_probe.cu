// Does compute-sanitizer racecheck order an ldmatrix read before another warp's later store when a
// named barrier (bar.sync id, count) separates them? The pair-form split (pair-ksplit) reused the
// staging tile for partial sums after such a barrier, and racecheck reported WAR hazards there.
// Mode 0: warp 1 reads the tile by ldmatrix.x4; mode 1: by ld.shared (control); then bar.sync 2, 128
// (or, mode 2, __syncthreads with ldmatrix), then warp 2 stores float4s over the rows warp 1 read.
#include <cstdio>
#include <cstdint>
__global__ void probe(int mode, float* out) {
  __shared__ __align__(128) float tile[16][132];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  for (int i = t; i < 16 * 132; i += blockDim.x) (&tile[0][0])[i] = float(i);
  __syncthreads();
  float acc = 0.f;
  if (warp == 1) {
    const float* row = &tile[8 + (lane & 7)][32 + 4 * (lane >> 3)];
    if (mode != 1) {
      uint32_t r[4];
      const uint32_t a = uint32_t(__cvta_generic_to_shared(row));
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
      acc = __uint_as_float(r[0]) + __uint_as_float(r[1]) + __uint_as_float(r[2]) + __uint_as_float(r[3]);
    } else {
      const float4 x = *reinterpret_cast<const float4*>(row);
      acc = x.x + x.y + x.z + x.w;
    }
  }
  if (mode == 2) __syncthreads();
  else asm volatile("bar.sync 2, 128;\n" ::: "memory");
  if (warp == 2) {
    float4* buf = reinterpret_cast<float4*>(&tile[8][0]);
    for (int i = lane; i < 8 * 132 / 4; i += 32) buf[i] = make_float4(1.f, 2.f, 3.f, 4.f);
  }
  out[t] = acc;
}
int main(int argc, char** argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : 0;
  float* out;
  cudaMalloc(&out, 128 * sizeof(float));
  probe<<<1, 128>>>(mode, out);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("mode %d: %s\n", mode, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
