// How fast the tensor cores take the 32-channel pass's products: cycles per k-step of
// m64nNk8 TF32 wgmma, A from shared memory (SS) or registers (RS), B from shared memory (K-major,
// no swizzle, the pass's layout), with 1 to 4 warpgroups issuing at once. Each warpgroup runs
// kReps products of 16 k-steps, waiting for each product before the next (as the pass does), or
// keeping kInFlight products in flight. Prints cycles per k-step per warpgroup and for the SM.
#include <cstdio>
#include <cstdint>
#include "kernels/wgmma.cuh"
using namespace gdn2::kernels;
constexpr int kKd = 64, kSteps = 16, kReps = 256;  // operands [rows][64]: a product of 16 k-steps reads them twice

template <int kN>
__device__ __forceinline__ void ss_n(float (&d)[kN / 2], uint64_t a, uint64_t b) {
  if constexpr (kN == 32) wgmma_tf32_ss<1>(d, a, b, 1u);
  else if constexpr (kN == 16) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]) : "l"(a), "l"(b));
  } else {
    static_assert(kN == 64, "16, 32 or 64");
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, 1, 1, 1;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b));
  }
}

// kMode 0: SS; 1: RS (A fragments from registers)
template <int kN, int kMode, int kInFlight>
__global__ void __launch_bounds__(512, 1) rate(int active_wgs, long long* out, float* sink) {
  extern __shared__ float4 smem_raw[];
  float* sm = reinterpret_cast<float*>(smem_raw);
  const int wg = threadIdx.x / 128;
  // per warpgroup: A [64][128], B [kN][128]
  float* a = sm + wg * (64 * kKd + 64 * kKd);
  float* b = a + 64 * kKd;
  for (int i = threadIdx.x % 128; i < 64 * kKd + kN * kKd; i += 128) a[i] = round_tf32(1e-3f * float(i % 97));
  fence_proxy_async();
  __syncthreads();
  if (wg >= active_wgs) return;
  float d[kN / 2] = {};
  uint32_t af[4 * kSteps];
  for (int i = 0; i < 4 * kSteps; ++i) af[i] = to_tf32(float(i + threadIdx.x) * 1e-4f);
  const uint64_t a0 = kmajor_desc<kKd>(a, 0), b0 = kmajor_desc<kKd>(b, 0);
  __syncwarp();
  const long long t0 = clock64();
  for (int r = 0; r < kReps; ++r) {
    fence_operands(d);
    wgmma_fence();
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      if constexpr (kMode == 0) ss_n<kN>(d, kmajor_desc_at_step(a0, s % 8), kmajor_desc_at_step(b0, s % 8));
      else wgmma_tf32<kN, 1>(d, af[4 * s], af[4 * s + 1], af[4 * s + 2], af[4 * s + 3], kmajor_desc_at_step(b0, s % 8), 1u);
    }
    wgmma_commit();
    wgmma_wait<kInFlight - 1>();
    fence_operands(d);
  }
  wgmma_wait<0>();
  fence_operands(d);
  const long long t1 = clock64();
  if (threadIdx.x % 128 == 0) out[blockIdx.x * 4 + wg] = t1 - t0;
  float x = 0.f;
  for (int i = 0; i < kN / 2; ++i) x += d[i];
  if (x == 12345.f) sink[threadIdx.x] = x;
}

template <int kN, int kMode, int kInFlight>
void run(const char* name) {
  const int smem = 4 * (64 * kKd * 2) * 4;  // 4 warpgroups x (A + room for B up to 64 rows)
  cudaFuncSetAttribute(rate<kN, kMode, kInFlight>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  long long* out; float* sink;
  cudaMalloc(&out, 132 * 4 * sizeof(long long)); cudaMalloc(&sink, 512 * sizeof(float));
  for (int wgs = 1; wgs <= 4; wgs *= 2) {
    double best = 1e30, per_wg = 0;
    for (int it = 0; it < 3; ++it) {
      rate<kN, kMode, kInFlight><<<132, 512, smem>>>(wgs, out, sink);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { printf("%s: %s\n", name, cudaGetErrorString(e)); return; }
      long long h[132 * 4];
      cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
      long long mx = 0;
      for (int w = 0; w < wgs; ++w) mx = h[w] > mx ? h[w] : mx;  // CTA 0
      const double c = double(mx) / (kReps * kSteps);
      if (c < best) { best = c; per_wg = c; }
    }
    printf("%-22s warpgroups %d: %6.1f cycles per k-step per warpgroup, %6.1f per k-step of the SM\n", name, wgs,
           per_wg, per_wg / wgs);
  }
  cudaFree(out); cudaFree(sink);
}

int main() {
  run<16, 0, 1>("SS m64n16k8 wait");
  run<32, 0, 1>("SS m64n32k8 wait");
  run<64, 0, 1>("SS m64n64k8 wait");
  run<32, 0, 2>("SS m64n32k8 2-deep");
  run<16, 1, 1>("RS m64n16k8 wait");
  run<32, 1, 1>("RS m64n32k8 wait");
  run<64, 1, 1>("RS m64n64k8 wait");
  run<32, 1, 2>("RS m64n32k8 2-deep");
  return 0;
}
