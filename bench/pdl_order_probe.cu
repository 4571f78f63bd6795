// Programmatic dependent launch two grids deep: may a grid C, launched behind B with the
// programmatic attribute, start before the grid A before B has completed, where B allowed its
// dependents to launch without waiting for A? The CUDA documentation describes the one edge
// between a primary and its secondary grid only. A plan of three grids in which the middle one does
// not wait (docs/performance.md, "The chunked rows' start") depends on the answer.
//
// Each round: A (plain launch) allows dependents at once and spins for kSpinA; B (programmatic,
// behind A) allows dependents at once, does not wait, and spins for kSpinB; C (programmatic,
// behind B) records at its start whether A had ended. Case 2 is the same with B waiting for A
// (griddepcontrol.wait) before it allows dependents. Prints, per case, in how many rounds C started
// before A ended, and the median start times after A's start.
//
// usage: ./gdn2_pdl_order_probe [rounds]   (needs an sm_90 GPU; exit 2 without one)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr unsigned long long kSpinA = 200000;  // ns
constexpr unsigned long long kSpinB = 20000;

struct Marks {
  unsigned long long a_start, a_end, b_start, c_start;
  int a_ended_at_b, a_ended_at_c;
};

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void allow_dependents() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
__device__ __forceinline__ void wait_prior() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

__global__ void grid_a(Marks* m, volatile int* a_ended) {
  allow_dependents();
  const unsigned long long t0 = now_ns();
  m->a_start = t0;
  while (now_ns() - t0 < kSpinA) {
  }
  m->a_end = now_ns();
  __threadfence();
  *a_ended = 1;
  __threadfence();
}
__global__ void grid_b(Marks* m, volatile int* a_ended, bool wait_for_a) {
  if (wait_for_a) wait_prior();
  allow_dependents();
  const unsigned long long t0 = now_ns();
  m->b_start = t0;
  m->a_ended_at_b = *a_ended;
  while (now_ns() - t0 < kSpinB) {
  }
}
__global__ void grid_c(Marks* m, volatile int* a_ended) {
  m->c_start = now_ns();
  m->a_ended_at_c = *a_ended;
}

int check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
  return 0;
}

template <typename... Params, typename... Args>
void launch_behind(void (*kernel)(Params...), cudaStream_t s, Args... args) {
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = s;
  config.attrs = &attr;
  config.numAttrs = 1;
  check(cudaLaunchKernelEx(&config, kernel, Params(args)...), "cudaLaunchKernelEx");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  int count = 0, major = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), "attribute");
  if (major != 9) {
    std::fprintf(stderr, "needs compute capability 9.x\n");
    return 2;
  }
  Marks* m = nullptr;
  int* a_ended = nullptr;
  check(cudaMalloc(&m, sizeof(Marks)), "cudaMalloc");
  check(cudaMalloc(&a_ended, sizeof(int)), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (int wait_for_a = 0; wait_for_a < 2; ++wait_for_a) {
    int c_before_a_end = 0, b_before_a_end = 0;
    std::vector<double> b_at, c_at, a_len;
    for (int r = 0; r < rounds; ++r) {
      check(cudaMemsetAsync(a_ended, 0, sizeof(int), s), "memset");
      check(cudaMemsetAsync(m, 0, sizeof(Marks), s), "memset");
      grid_a<<<1, 32, 0, s>>>(m, a_ended);
      launch_behind(grid_b, s, m, a_ended, wait_for_a != 0);
      launch_behind(grid_c, s, m, a_ended);
      Marks h;
      check(cudaMemcpyAsync(&h, m, sizeof(Marks), cudaMemcpyDeviceToHost, s), "copy");
      check(cudaStreamSynchronize(s), "sync");
      c_before_a_end += h.a_ended_at_c == 0 || h.c_start < h.a_end;
      b_before_a_end += h.a_ended_at_b == 0 || h.b_start < h.a_end;
      b_at.push_back(double(h.b_start - h.a_start) * 1e-3);
      c_at.push_back(double(h.c_start - h.a_start) * 1e-3);
      a_len.push_back(double(h.a_end - h.a_start) * 1e-3);
    }
    std::printf("B %s: in %d of %d rounds C started before A ended (B in %d); median us after A's start: "
                "B %.1f, C %.1f, A's end %.1f\n",
                wait_for_a ? "waits for A" : "does not wait", c_before_a_end, rounds, b_before_a_end, median(b_at),
                median(c_at), median(a_len));
  }
  return 0;
}
