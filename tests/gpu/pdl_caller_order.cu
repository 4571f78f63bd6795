// A caller's kernel that lets its dependents launch at its start (programmatic dependent launch)
// and writes cu_seqlens only later, then a call without the max_seqlen hint on the same stream,
// on sizes where kAuto's choice is made on the device between the fused pair form (the call's
// first kernel, launched behind the caller's) and the chunked path (docs/design.md, "Three
// algorithms"). Every kernel of the call must decide on the offsets the caller wrote: a launch
// two grids behind the caller's may start before the caller's kernel has completed
// (bench/pdl_order_probe.cu), so a decision read too early would run neither path (output left as
// it was) or both. Each round compares the call's output and final state bit for bit with a call
// made after a synchronisation, in both directions: the caller's offsets turn the equal split
// (the shorter path) into one long sequence (the longer path), and the reverse.
// On an H100 the build before the fix (9df62ab, the pair form letting the next grid launch before
// its wait) differed in 20 of 20 rounds; with it, 0 of 20 (bench/results/2026-12-06-caller-order/).
// Run by tests/python/test_pdl_caller_order_gpu.py. usage: ./build/gdn2_pdl_caller_order [rounds]
// Exit: 0 PASS, 1 FAIL, 2 no sm_90 GPU or a CUDA error before any check.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "contract.h"
#include "gdn2/gdn2.h"

namespace {

using gdn2::DType;

constexpr unsigned long long kSpinNs = 200000;  // the caller's kernel's work before it writes

// The caller's kernel: dependents may launch at once; the offsets are written after kSpinNs.
__global__ void write_offsets_late(int32_t* cu, const int32_t* offsets, int n) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < kSpinNs);
  for (int i = threadIdx.x; i < n; i += blockDim.x) cu[i] = offsets[i];
}

uint16_t bf16(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return uint16_t((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

#define CHECK(call)                                                                        \
  do {                                                                                     \
    const cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("%s: %s\n", #call, cudaGetErrorString(e_));                              \
      return 2;                                                                            \
    }                                                                                      \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  int count = 0, major = 0, sms = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return std::puts("SKIP: no CUDA device"), 2;
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (major != 9) return std::puts("SKIP: not an sm_90 GPU"), 2;

  // Sizes: two sequences of 16 heads, 1024 tokens (on 132 SMs kAuto chooses on the device between
  // the fused pair form below about 753 tokens and the chunked path above).
  const int64_t T = 1024, N = 2, H = 16, D = gdn2::kHeadDimK;
  const int64_t key_shape[3] = {T, H, D}, value_shape[3] = {T, H, D}, cu_shape[1] = {N + 1};
  const int64_t state_shape[4] = {N, H, D, D};
  const size_t key_elems = size_t(T * H * D), state_elems = size_t(N * H * D * D);

  std::vector<uint16_t> q(key_elems), k(key_elems), b(key_elems), v(key_elems), w(key_elems);
  std::vector<float> g(key_elems);
  uint32_t seed = 12345;
  auto uniform = [&] { seed = seed * 1664525u + 1013904223u; return float(seed >> 8) / float(1u << 24); };
  for (size_t i = 0; i < key_elems; ++i) {
    q[i] = bf16(uniform() - 0.5f), k[i] = bf16((uniform() - 0.5f) * 0.2f), b[i] = bf16(uniform());
    v[i] = bf16(uniform() - 0.5f), w[i] = bf16(uniform()), g[i] = -uniform();
  }
  uint16_t *dq, *dk, *db, *dv, *dw, *dout, *dref;
  float *dg, *dht, *dhref;
  int32_t *dcu, *dsplit, *dlong;
  CHECK(cudaMalloc(&dq, key_elems * 2));
  CHECK(cudaMalloc(&dk, key_elems * 2));
  CHECK(cudaMalloc(&db, key_elems * 2));
  CHECK(cudaMalloc(&dv, key_elems * 2));
  CHECK(cudaMalloc(&dw, key_elems * 2));
  CHECK(cudaMalloc(&dout, key_elems * 2));
  CHECK(cudaMalloc(&dref, key_elems * 2));
  CHECK(cudaMalloc(&dg, key_elems * 4));
  CHECK(cudaMalloc(&dht, state_elems * 4));
  CHECK(cudaMalloc(&dhref, state_elems * 4));
  CHECK(cudaMalloc(&dcu, (N + 1) * 4));
  CHECK(cudaMalloc(&dsplit, (N + 1) * 4));
  CHECK(cudaMalloc(&dlong, (N + 1) * 4));
  CHECK(cudaMemcpy(dq, q.data(), key_elems * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, k.data(), key_elems * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), key_elems * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, v.data(), key_elems * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dw, w.data(), key_elems * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dg, g.data(), key_elems * 4, cudaMemcpyHostToDevice));
  const int32_t split[3] = {0, int32_t(T / 2), int32_t(T)}, one_long[3] = {0, int32_t(T - 1), int32_t(T)};
  CHECK(cudaMemcpy(dsplit, split, sizeof split, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dlong, one_long, sizeof one_long, cudaMemcpyHostToDevice));

  gdn2::ForwardArgs args;
  args.q = gdn2::contiguous_view(dq, DType::kBFloat16, 0, 3, key_shape);
  args.k = gdn2::contiguous_view(dk, DType::kBFloat16, 0, 3, key_shape);
  args.b = gdn2::contiguous_view(db, DType::kBFloat16, 0, 3, key_shape);
  args.g = gdn2::contiguous_view(dg, DType::kFloat32, 0, 3, key_shape);
  args.v = gdn2::contiguous_view(dv, DType::kBFloat16, 0, 3, value_shape);
  args.w = gdn2::contiguous_view(dw, DType::kBFloat16, 0, 3, value_shape);
  args.cu_seqlens = gdn2::contiguous_view(dcu, DType::kInt32, 0, 1, cu_shape);
  args.output = gdn2::contiguous_view(dout, DType::kBFloat16, 0, 3, value_shape);
  args.final_state = gdn2::contiguous_view(dht, DType::kFloat32, 0, 4, state_shape);
  const size_t ws_bytes = gdn2::forward_workspace_bytes(T, N, H);
  void* dws = nullptr;
  CHECK(cudaMalloc(&dws, ws_bytes));
  args.workspace = dws;
  args.workspace_bytes = ws_bytes;

  // The test means something only where the choice is on the device, between the paths that the
  // two offsets pick, with the pair form as the call's first kernel (src/launch.cu).
  gdn2::LaunchPlan plan;
  if (!gdn2::check_forward(args, &plan).ok()) return std::puts("FAIL: check_forward refused the call"), 1;
  const bool pair_first = plan.shorter == gdn2::Algorithm::kFused && 2 * N * H <= sms;
  if (!plan.on_device() || !pair_first || !(T / 2 < plan.length && plan.length <= T - 1)) {
    std::printf("SKIP: on %d SMs the plan is not a choice on the device with the pair form first "
                "(shorter %d, longer %d, length %lld)\n", sms, int(plan.shorter), int(plan.longer),
                (long long)plan.length);
    return 2;
  }
  std::printf("plan: shorter path %d (pair form first), longer %d, longest length %lld and over: the longer\n",
              int(plan.shorter), int(plan.longer), (long long)plan.length);

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<uint16_t> out(key_elems), ref(key_elems);
  std::vector<float> ht(state_elems), href(state_elems);
  int failures = 0;
  for (int r = 0; r < rounds; ++r) {
    const bool to_long = r % 2 == 0;  // stale offsets -> written offsets
    const int32_t* stale = to_long ? dsplit : dlong;
    const int32_t* written = to_long ? dlong : dsplit;
    // The reference: the written offsets in place, everything complete, then the call.
    CHECK(cudaMemcpyAsync(dcu, written, (N + 1) * 4, cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaMemsetAsync(dout, 0xFF, key_elems * 2, stream));  // NaN bf16
    CHECK(cudaMemsetAsync(dht, 0xFF, state_elems * 4, stream));  // NaN fp32
    CHECK(cudaStreamSynchronize(stream));
    gdn2::Status st = gdn2::forward(args, stream);
    if (!st.ok()) return std::printf("FAIL: forward: %s\n", st.message), 1;
    CHECK(cudaMemcpyAsync(dref, dout, key_elems * 2, cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaMemcpyAsync(dhref, dht, state_elems * 4, cudaMemcpyDeviceToDevice, stream));
    // The case: stale offsets, poisoned outputs, all complete; then the caller's kernel, which lets
    // the call's first kernel launch at once and writes the offsets 200 us later, then the call.
    CHECK(cudaMemcpyAsync(dcu, stale, (N + 1) * 4, cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaMemsetAsync(dout, 0xFF, key_elems * 2, stream));
    CHECK(cudaMemsetAsync(dht, 0xFF, state_elems * 4, stream));
    CHECK(cudaStreamSynchronize(stream));
    write_offsets_late<<<1, 32, 0, stream>>>(dcu, written, int(N + 1));
    st = gdn2::forward(args, stream);
    if (!st.ok()) return std::printf("FAIL: forward: %s\n", st.message), 1;
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(out.data(), dout, key_elems * 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ref.data(), dref, key_elems * 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ht.data(), dht, state_elems * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(href.data(), dhref, state_elems * 4, cudaMemcpyDeviceToHost));
    size_t nan_out = 0;
    for (uint16_t x : ref) nan_out += (x & 0x7F80u) == 0x7F80u && (x & 0x7Fu) != 0;
    if (nan_out != 0) return std::printf("FAIL: the reference call left %zu NaN outputs\n", nan_out), 1;
    const bool same = std::memcmp(out.data(), ref.data(), key_elems * 2) == 0 &&
                      std::memcmp(ht.data(), href.data(), state_elems * 4) == 0;
    std::printf("round %d (%s): %s\n", r, to_long ? "equal split -> one long sequence" : "one long sequence -> equal split",
                same ? "bit for bit the reference" : "DIFFERS from the reference");
    failures += same ? 0 : 1;
  }
  std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
