// Host time of gdn2::forward on a tiny problem (T = 16, one head), and of the CUDA calls it is
// made of: the contract check, a kernel launch (an empty kernel), and for comparison a 12-byte
// memset (calls made one before phase 1 until the fault words replaced the zeroed flags). The
// launch of an empty kernel is also timed the ways gdn2's kernels could be launched: with
// gdn2's launch shapes (640 threads and 219 KB of shared memory, or a 512-byte parameter as large as
// phase 1's), with the programmatic-serialization attribute (cudaLaunchKernelEx), and through the
// driver API (cuLaunchKernel on the kernel's CUfunction), to see what a launch costs and where. Also the
// GPU time of one call from CUDA-graph replay and its CUDA-event time with the GPU idle at the
// start (docs/performance.md, "The host path"). Each host number: median of 9 repetitions of
// back-to-back calls.
//
// usage: ./build/gdn2_host_timing
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "gdn2/gdn2.h"

namespace {

// A timing program, not a library: any CUDA failure ends it.
void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
  std::exit(1);
}

__global__ void empty_kernel(int* never_written) {
  if (never_written != nullptr && threadIdx.x == 1023) *never_written = 0;
}

// As large as phase 1's parameters (ChunkFactorsParams and the 128-byte tensor map of g).
struct BigParams {
  int* never_written;
  long long pad[63];
};
__global__ void empty_kernel_big(const __grid_constant__ BigParams p) {
  if (p.never_written != nullptr && threadIdx.x == 1023) *p.never_written = int(p.pad[threadIdx.x % 63]);
}

// A driver entry point, looked up through the runtime (no link against libcuda).
template <typename F>
F driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "driver entry point %s not found\n", name);
    std::exit(1);
  }
  return reinterpret_cast<F>(fn);
}

template <typename F>
double host_us_per_call(F f, cudaStream_t s, int calls) {
  std::vector<double> t;
  for (int rep = 0; rep < 9; ++rep) {
    cudaStreamSynchronize(s);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing to time\n");
    return 0;
  }
  const int64_t T = 16, N = 1, Hq = 1, Hv = 1, K = gdn2::kHeadDimK, V = gdn2::kHeadDimV;
  cudaStream_t s;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  const size_t key_bytes = T * Hq * K * 2, value_bytes = T * Hv * V * 2;
  void *q, *k, *b, *g, *v, *w, *o, *cu, *ws;
  for (void** p : {&q, &k, &b, &v, &w, &o}) {
    check(cudaMalloc(p, std::max(key_bytes, value_bytes)), "cudaMalloc");
    check(cudaMemset(*p, 0, std::max(key_bytes, value_bytes)), "cudaMemset");
  }
  check(cudaMalloc(&g, 2 * key_bytes), "cudaMalloc");
  check(cudaMemset(g, 0, 2 * key_bytes), "cudaMemset");
  const int offsets[2] = {0, int(T)};
  check(cudaMalloc(&cu, sizeof(offsets)), "cudaMalloc");
  check(cudaMemcpy(cu, offsets, sizeof(offsets), cudaMemcpyHostToDevice), "cudaMemcpy");
  const size_t ws_bytes = gdn2::forward_workspace_bytes(T, N, Hq);
  check(cudaMalloc(&ws, ws_bytes), "cudaMalloc");

  const int64_t key_shape[3] = {T, Hq, K}, value_shape[3] = {T, Hv, V}, cu_shape[1] = {N + 1};
  gdn2::ForwardArgs a;
  a.q = gdn2::contiguous_view(q, gdn2::DType::kBFloat16, 0, 3, key_shape);
  a.k = gdn2::contiguous_view(k, gdn2::DType::kBFloat16, 0, 3, key_shape);
  a.b = gdn2::contiguous_view(b, gdn2::DType::kBFloat16, 0, 3, key_shape);
  a.g = gdn2::contiguous_view(g, gdn2::DType::kFloat32, 0, 3, key_shape);
  a.v = gdn2::contiguous_view(v, gdn2::DType::kBFloat16, 0, 3, value_shape);
  a.w = gdn2::contiguous_view(w, gdn2::DType::kBFloat16, 0, 3, value_shape);
  a.output = gdn2::contiguous_view(o, gdn2::DType::kBFloat16, 0, 3, value_shape);
  a.cu_seqlens = gdn2::contiguous_view(cu, gdn2::DType::kInt32, 0, 1, cu_shape);
  a.scale = 1.f / 11.3137085f;
  a.workspace = ws;
  a.workspace_bytes = ws_bytes;
  const gdn2::Stream stream = reinterpret_cast<gdn2::Stream>(s);
  gdn2::Status st = gdn2::forward(a, stream);
  if (!st.ok()) {
    std::fprintf(stderr, "gdn2::forward failed: %s\n", st.message);
    return 1;
  }
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize");

  std::printf("host, us per call:\n");
  std::printf("  gdn2::check_forward       %6.2f\n", host_us_per_call([&] { (void)gdn2::check_forward(a); }, s, 1000));
  std::printf("  forward_workspace_bytes(args) %6.2f\n", host_us_per_call([&] { (void)gdn2::forward_workspace_bytes(a); }, s, 1000));
  std::printf("  gdn2::forward             %6.2f\n", host_us_per_call([&] { (void)gdn2::forward(a, stream); }, s, 100));
  std::printf("  cudaMemsetAsync (12 B)    %6.2f\n", host_us_per_call([&] { cudaMemsetAsync(ws, 0, 12, s); }, s, 100));
  std::printf("  empty kernel <<<1, 32>>>  %6.2f\n", host_us_per_call([&] { empty_kernel<<<1, 32, 0, s>>>(nullptr); }, s, 100));

  // The same empty kernel launched the other ways (host us per call, same protocol).
  constexpr int kBigSmem = 219 * 1024;
  check(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBigSmem), "cudaFuncSetAttribute");
  std::printf("  empty kernel <<<1, 640, 219 KB>>>        %6.2f\n",
              host_us_per_call([&] { empty_kernel<<<1, 640, kBigSmem, s>>>(nullptr); }, s, 100));
  BigParams big{};
  std::printf("  empty kernel, 512-byte parameter         %6.2f\n",
              host_us_per_call([&] { empty_kernel_big<<<1, 32, 0, s>>>(big); }, s, 100));
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = s;
  config.attrs = attr;
  config.numAttrs = 1;
  int* null_int = nullptr;
  std::printf("  empty kernel, cudaLaunchKernelEx + PDL   %6.2f\n",
              host_us_per_call([&] { (void)cudaLaunchKernelEx(&config, empty_kernel, null_int); }, s, 100));
  using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                CUstream, void**, void**);
  const auto cu_launch = driver_entry<LaunchFn>("cuLaunchKernel");
  cudaFunction_t fn_empty = nullptr, fn_big = nullptr;
  check(cudaGetFuncBySymbol(&fn_empty, reinterpret_cast<const void*>(empty_kernel)), "cudaGetFuncBySymbol");
  check(cudaGetFuncBySymbol(&fn_big, reinterpret_cast<const void*>(empty_kernel_big)), "cudaGetFuncBySymbol");
  void* empty_args[] = {&null_int};
  void* big_args[] = {&big};
  const CUstream cs = reinterpret_cast<CUstream>(s);
  std::printf("  empty kernel, cuLaunchKernel (driver)    %6.2f\n",
              host_us_per_call([&] { (void)cu_launch(reinterpret_cast<CUfunction>(fn_empty), 1, 1, 1, 32, 1, 1, 0, cs, empty_args, nullptr); }, s, 100));
  std::printf("  same, 512-byte parameter                 %6.2f\n",
              host_us_per_call([&] { (void)cu_launch(reinterpret_cast<CUfunction>(fn_big), 1, 1, 1, 32, 1, 1, 0, cs, big_args, nullptr); }, s, 100));
  std::printf("  cudaLaunchKernel (runtime, args array)   %6.2f\n",
              host_us_per_call([&] { (void)cudaLaunchKernel(reinterpret_cast<const void*>(empty_kernel), dim3(1), dim3(32), empty_args, 0, s); }, s, 100));
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  check(cudaGetLastError(), "the launches above");

  // GPU time of one call: a graph of 20 calls, median of 11 replays.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < 20; ++i) (void)gdn2::forward(a, stream);
  check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  auto median_ms = [&](auto enqueue, int reps) {
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(e0, s);
      enqueue();
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      float ms = 0.f;
      cudaEventElapsedTime(&ms, e0, e1);
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const float graph_us = median_ms([&] { cudaGraphLaunch(exec, s); }, 11) * 1e3f / 20;
  const float events_us = median_ms([&] { (void)gdn2::forward(a, stream); }, 101) * 1e3f;
  std::printf("GPU, us per call:\n");
  std::printf("  graph replay (20 calls)   %6.2f\n", graph_us);
  std::printf("  events, idle GPU at start %6.2f\n", events_us);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return 0;
}
