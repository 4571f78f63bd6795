// The C++ API end to end: two packed sequences, GVA (Hq = 2, Hv = 4), initial and final state.
// With a GPU: runs gdn2::forward and compares with the fp64 tokenwise reference.
// Without one: says so and compares the CPU mirror of the chunked algorithm with the reference.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "gdn2/gdn2.h"
#include "reference/reference.h"

namespace {

#define CHECK_CUDA(x)                                                                   \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

float round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

template <typename T>
double rel_error(const std::vector<T>& x, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = double(x[i]) - ref[i];
    if (!std::isfinite(double(x[i]))) return INFINITY;
    num += d * d;
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

int main() {
  const int Hq = 2, Hv = 4, K = gdn2::kHeadDimK, V = gdn2::kHeadDimV;
  const std::vector<int64_t> cu = {0, 100, 300};  // two sequences: 100 and 200 tokens
  const int N = int(cu.size()) - 1;
  const int64_t T = cu.back();

  // Model-like inputs: unit-norm q and k, v ~ N(0, 1), sigmoid gates, decays down to -20 and beyond.
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  auto sigmoid = [](float x) { return 1.f / (1.f + std::exp(-x)); };
  std::vector<float> q(T * Hq * K), k(q.size()), g(q.size()), b(q.size());
  std::vector<float> v(T * Hv * V), w(v.size()), h0(size_t(N) * Hv * V * K);
  for (int64_t r = 0; r < T * Hq; ++r) {
    double nq = 0, nk = 0;
    for (int c = 0; c < K; ++c) {
      q[r * K + c] = normal(rng), k[r * K + c] = normal(rng);
      nq += q[r * K + c] * q[r * K + c], nk += k[r * K + c] * k[r * K + c];
    }
    for (int c = 0; c < K; ++c) {
      q[r * K + c] = round_bf16(q[r * K + c] / float(std::sqrt(nq)));
      k[r * K + c] = round_bf16(k[r * K + c] / float(std::sqrt(nk)));
      g[r * K + c] = -std::exp(normal(rng)) * std::log1p(std::exp(2.f * normal(rng)));
      b[r * K + c] = round_bf16(sigmoid(normal(rng)));
    }
  }
  for (auto& x : v) x = round_bf16(normal(rng));
  for (auto& x : w) x = round_bf16(sigmoid(normal(rng)));
  for (auto& x : h0) x = 0.1f * normal(rng);
  const float scale = 1.f / std::sqrt(float(K));

  gdn2::reference::Problem p;
  p.T = T, p.N = N, p.Hq = Hq, p.Hv = Hv, p.K = K, p.V = V;
  p.cu_seqlens = cu.data(), p.q = q.data(), p.k = k.data(), p.g = g.data(), p.b = b.data();
  p.v = v.data(), p.w = w.data(), p.initial_state = h0.data(), p.scale = scale;
  std::vector<double> ref_o(T * Hv * V), ref_s(h0.size());
  gdn2::reference::tokenwise_f64(p, ref_o.data(), ref_s.data());

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA GPU: running the CPU mirror of the chunked algorithm instead\n");
    std::vector<float> o(ref_o.size()), s(ref_s.size());
    gdn2::reference::ChunkedStats stats;
    gdn2::reference::chunked_f32(p, o.data(), s.data(), &stats);
    std::printf("cpu chunked vs fp64 tokenwise: output rel err %.3e, final state rel err %.3e, "
                "largest decay factor %.9g\n", rel_error(o, ref_o), rel_error(s, ref_s),
                stats.max_factor);
    return 0;
  }

  // Device buffers: bf16 inputs, fp32 g and states, the workspace sized by the library.
  auto to_bf16 = [](const std::vector<float>& x) {
    std::vector<__nv_bfloat16> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = __float2bfloat16_rn(x[i]);
    return y;
  };
  auto upload = [](const void* host, size_t bytes, void** dev) {
    cudaError_t e = cudaMalloc(dev, bytes);
    return e == cudaSuccess ? cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice) : e;
  };
  const auto qh = to_bf16(q), kh = to_bf16(k), bh = to_bf16(b), vh = to_bf16(v), wh = to_bf16(w);
  void *dq, *dk, *db, *dv, *dw, *dg, *dcu, *dh0, *dout, *dhn, *dws;
  CHECK_CUDA(upload(qh.data(), qh.size() * 2, &dq));
  CHECK_CUDA(upload(kh.data(), kh.size() * 2, &dk));
  CHECK_CUDA(upload(bh.data(), bh.size() * 2, &db));
  CHECK_CUDA(upload(vh.data(), vh.size() * 2, &dv));
  CHECK_CUDA(upload(wh.data(), wh.size() * 2, &dw));
  CHECK_CUDA(upload(g.data(), g.size() * 4, &dg));
  CHECK_CUDA(upload(cu.data(), cu.size() * 8, &dcu));
  CHECK_CUDA(upload(h0.data(), h0.size() * 4, &dh0));
  CHECK_CUDA(cudaMalloc(&dout, ref_o.size() * 2));
  CHECK_CUDA(cudaMalloc(&dhn, ref_s.size() * 4));
  const size_t ws_bytes = gdn2::forward_workspace_bytes(T, N, Hq);
  CHECK_CUDA(cudaMalloc(&dws, ws_bytes));

  const int64_t key_shape[3] = {T, Hq, K}, value_shape[3] = {T, Hv, V}, state_shape[4] = {N, Hv, V, K};
  const int64_t cu_shape[1] = {N + 1};
  using gdn2::DType;
  gdn2::ForwardArgs args;
  args.q = gdn2::contiguous_view(dq, DType::kBFloat16, 0, 3, key_shape);
  args.k = gdn2::contiguous_view(dk, DType::kBFloat16, 0, 3, key_shape);
  args.b = gdn2::contiguous_view(db, DType::kBFloat16, 0, 3, key_shape);
  args.g = gdn2::contiguous_view(dg, DType::kFloat32, 0, 3, key_shape);
  args.v = gdn2::contiguous_view(dv, DType::kBFloat16, 0, 3, value_shape);
  args.w = gdn2::contiguous_view(dw, DType::kBFloat16, 0, 3, value_shape);
  args.cu_seqlens = gdn2::contiguous_view(dcu, DType::kInt64, 0, 1, cu_shape);
  args.initial_state = gdn2::contiguous_view(dh0, DType::kFloat32, 0, 4, state_shape);
  args.output = gdn2::contiguous_view(dout, DType::kBFloat16, 0, 3, value_shape);
  args.final_state = gdn2::contiguous_view(dhn, DType::kFloat32, 0, 4, state_shape);
  args.scale = scale;
  args.workspace = dws;
  args.workspace_bytes = ws_bytes;

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  gdn2::Status st = gdn2::validate_values(args, stream);  // optional, synchronous
  if (st.ok()) st = gdn2::forward(args, stream);         // asynchronous, no allocation
  if (!st.ok()) {
    std::fprintf(stderr, "gdn2::forward: %s\n", st.message);
    return 1;
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));

  std::vector<__nv_bfloat16> out(ref_o.size());
  std::vector<float> hn(ref_s.size());
  CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * 2, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hn.data(), dhn, hn.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<float> outf(out.size());
  for (size_t i = 0; i < out.size(); ++i) outf[i] = __bfloat162float(out[i]);
  const double eo = rel_error(outf, ref_o), es = rel_error(hn, ref_s);
  std::printf("gdn2::forward vs fp64 tokenwise: output rel err %.3e, final state rel err %.3e\n", eo, es);

  // A bad call is refused before anything is launched: Hv not a multiple of Hq.
  gdn2::ForwardArgs bad = args;
  const int64_t bad_value_shape[3] = {T, 3, V};
  bad.v = gdn2::contiguous_view(dv, DType::kBFloat16, 0, 3, bad_value_shape);
  std::printf("bad call refused: %s\n", gdn2::forward(bad, stream).message);

  for (void* ptr : {dq, dk, db, dv, dw, dg, dcu, dh0, dout, dhn, dws}) cudaFree(ptr);
  cudaStreamDestroy(stream);
  cudaDeviceReset();  // destroys the context, so that compute-sanitizer's leak check sees every free
  const bool pass = eo <= 4e-3 && es <= 3e-3;
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
