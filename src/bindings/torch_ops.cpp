// PyTorch custom ops over the public C++ API (include/gdn2/gdn2.h).
//
//   gdn2::forward       allocates output (and final_state: one per sequence) and runs the forward.
//   gdn2::forward_out   writes into caller-provided output / final_state (which may be a pool of
//                       state slots with final_state_indices, and initial_state itself).
//   gdn2::reference_tokenwise   the CPU fp64 tokenwise reference (tests and benchmark accuracy).
//
// The binding only translates tensors: every contract rule lives in src/contract.cpp
// (gdn2::check_forward), whose message is raised as ValueError (metadata, values) or RuntimeError
// (device, CUDA). The fake (meta) implementations live in python/gdn2/ops.py, so that
// torch.compile can trace the ops; without validate nothing here synchronises, so CUDA graphs
// capture them.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <tuple>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include "gdn2/gdn2.h"
#include "reference/reference.h"

namespace {

gdn2::DType to_dtype(at::ScalarType t) {
  switch (t) {
    case at::kBFloat16: return gdn2::DType::kBFloat16;
    case at::kFloat: return gdn2::DType::kFloat32;
    case at::kInt: return gdn2::DType::kInt32;
    case at::kLong: return gdn2::DType::kInt64;
    case at::kHalf: return gdn2::DType::kFloat16;
    default: return gdn2::DType::kOther;
  }
}

// A view of `t` as the contract sees it. Ranks above 4 are passed through (the contract rejects
// them); only the first 4 sizes/strides fit the view. Outputs take the mutable pointer, which
// materialises a lazily cloned (copy-on-write) tensor before the kernels write to it.
gdn2::TensorView to_view(const at::Tensor& t, bool written = false) {
  gdn2::TensorView view;
  if (!t.defined()) return view;
  view.data = written ? t.mutable_data_ptr() : t.const_data_ptr();
  view.dtype = to_dtype(t.scalar_type());
  view.device = t.is_cuda() ? static_cast<int32_t>(t.get_device()) : -1;
  view.rank = static_cast<int32_t>(t.dim());
  const int n = std::min<int>(view.rank, 4);
  for (int i = 0; i < n; ++i) {
    view.sizes[i] = t.size(i);
    view.strides[i] = t.stride(i);
  }
  return view;
}

gdn2::TensorView to_view(const std::optional<at::Tensor>& t, bool written = false) {
  return t.has_value() ? to_view(*t, written) : gdn2::TensorView{};
}

void raise_if_failed(const gdn2::Status& status) {
  if (status.ok()) return;
  if (status.code == gdn2::StatusCode::kInvalidArgument ||
      status.code == gdn2::StatusCode::kInvalidValue) {
    TORCH_CHECK_VALUE(false, status.message);
  }
  TORCH_CHECK(false, status.message);
}

// Shapes taken from the inputs before the contract has looked at them: only read where the rank
// allows it, so that bad input is reported by check_forward, never by an indexing error here.
bool is_rank(const at::Tensor& t, int64_t rank) { return t.defined() && t.dim() == rank; }

int64_t num_sequences(const at::Tensor& cu_seqlens) {
  return (is_rank(cu_seqlens, 1) && cu_seqlens.size(0) >= 1) ? cu_seqlens.size(0) - 1 : -1;
}

void run_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                 const at::Tensor& g, const at::Tensor& b, const at::Tensor& w,
                 const at::Tensor& cu_seqlens, const std::optional<at::Tensor>& initial_state,
                 const at::Tensor& output, const std::optional<at::Tensor>& final_state,
                 double scale, bool validate, int64_t algorithm, int64_t max_seqlen,
                 const std::optional<at::Tensor>& initial_state_indices,
                 const std::optional<at::Tensor>& final_state_indices) {
  gdn2::ForwardArgs args;
  args.q = to_view(q);
  args.k = to_view(k);
  args.v = to_view(v);
  args.g = to_view(g);
  args.b = to_view(b);
  args.w = to_view(w);
  args.cu_seqlens = to_view(cu_seqlens);
  args.initial_state = to_view(initial_state);
  args.output = to_view(output, /*written=*/true);
  args.final_state = to_view(final_state, /*written=*/true);
  args.initial_state_indices = to_view(initial_state_indices);
  args.final_state_indices = to_view(final_state_indices);
  args.scale = static_cast<float>(scale);
  // Out-of-range values reach the contract as they are (it names the argument).
  args.algorithm = static_cast<gdn2::Algorithm>(
      algorithm >= INT32_MIN && algorithm <= INT32_MAX ? static_cast<int32_t>(algorithm) : INT32_MIN);
  args.max_seqlen = max_seqlen;

  if (!q.is_cuda()) {
    // Reached through the CPU dispatch key (or with q on the host): the contract names the
    // offending argument. Nothing CUDA is touched before it has spoken.
    raise_if_failed(gdn2::check_forward(args));
    TORCH_CHECK(false, "gdn2: q must be a CUDA tensor");
  }

  const c10::cuda::CUDAGuard guard(q.device());
  const gdn2::Stream stream = c10::cuda::getCurrentCUDAStream(q.device().index()).stream();

  // Workspace from PyTorch's caching allocator on the current stream: no cudaMalloc after
  // warm-up, stream-ordered reuse, and a graph-private pool under CUDA-graph capture. Its size is
  // the plan's (the chunk factors only where the chunked path may run); inputs whose shapes give no
  // size get no workspace and are then rejected by check_forward.
  at::Tensor workspace;
  {
    const size_t bytes = gdn2::forward_workspace_bytes(args);
    if (bytes > 0) {
      workspace = at::empty({static_cast<int64_t>(bytes)}, q.options().dtype(at::kByte));
      args.workspace = workspace.data_ptr();
      args.workspace_bytes = bytes;
    }
  }

  if (validate) {
    // Checks the metadata too, then synchronises the stream to read the verdict back to the
    // host: not capturable in a CUDA graph.
    raise_if_failed(gdn2::validate_values(args, stream));
  }
  raise_if_failed(gdn2::forward(args, stream));
}

void forward_out(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                 const at::Tensor& g, const at::Tensor& b, const at::Tensor& w,
                 const at::Tensor& cu_seqlens, const std::optional<at::Tensor>& initial_state,
                 const at::Tensor& output, const std::optional<at::Tensor>& final_state,
                 double scale, bool validate, int64_t algorithm, int64_t max_seqlen,
                 const std::optional<at::Tensor>& initial_state_indices,
                 const std::optional<at::Tensor>& final_state_indices) {
  run_forward(q, k, v, g, b, w, cu_seqlens, initial_state, output, final_state, scale, validate, algorithm,
              max_seqlen, initial_state_indices, final_state_indices);
}

std::tuple<at::Tensor, at::Tensor> forward(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& g,
    const at::Tensor& b, const at::Tensor& w, const at::Tensor& cu_seqlens,
    const std::optional<at::Tensor>& initial_state, double scale, bool output_final_state,
    bool validate, int64_t algorithm, int64_t max_seqlen,
    const std::optional<at::Tensor>& initial_state_indices) {
  // Outputs live on q's device. Where q or v has the wrong rank the output is an empty
  // placeholder: check_forward then reports the input, not a shape error from here.
  const auto bf16 = q.options().dtype(at::kBFloat16);
  const auto f32 = q.options().dtype(at::kFloat);
  const bool shapes_readable = is_rank(q, 3) && is_rank(v, 3);
  at::Tensor output = shapes_readable ? at::empty({q.size(0), v.size(1), v.size(2)}, bf16)
                                      : at::empty({0}, bf16);
  std::optional<at::Tensor> final_state;
  at::Tensor final_state_result;
  if (output_final_state) {
    const int64_t n_seq = num_sequences(cu_seqlens);
    final_state_result = (shapes_readable && n_seq >= 0)
                             ? at::empty({n_seq, v.size(1), v.size(2), q.size(2)}, f32)
                             : at::empty({0}, f32);
    final_state = final_state_result;
  } else {
    final_state_result = at::empty({0}, f32);
  }
  run_forward(q, k, v, g, b, w, cu_seqlens, initial_state, output, final_state, scale, validate, algorithm,
              max_seqlen, initial_state_indices, std::nullopt);
  return {output, final_state_result};
}

// The fp64 tokenwise reference on the CPU. The reference reads raw arrays, so its shape
// preconditions are checked here (this is a test helper, not the contract of the fast path).
std::tuple<at::Tensor, at::Tensor> reference_tokenwise(
    const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& g,
    const at::Tensor& b, const at::Tensor& w, const at::Tensor& cu_seqlens,
    const std::optional<at::Tensor>& initial_state, double scale) {
  const auto host_f32 = [](const at::Tensor& t) { return t.to(at::kCPU, at::kFloat).contiguous(); };
  TORCH_CHECK_VALUE(q.dim() == 3 && v.dim() == 3, "reference_tokenwise: q and v must be 3-D");
  const int64_t T = q.size(0), Hq = q.size(1), K = q.size(2);
  const int64_t Hv = v.size(1), V = v.size(2);
  for (const at::Tensor* t : {&k, &g, &b}) {
    TORCH_CHECK_VALUE(t->sizes() == q.sizes(), "reference_tokenwise: k, g, b must match q's shape");
  }
  TORCH_CHECK_VALUE(w.sizes() == v.sizes(), "reference_tokenwise: w must match v's shape");
  TORCH_CHECK_VALUE(v.size(0) == T && Hq > 0 && Hv % Hq == 0,
                    "reference_tokenwise: v must be [T, Hv, V] with Hv a multiple of Hq");
  TORCH_CHECK_VALUE(cu_seqlens.dim() == 1 && cu_seqlens.size(0) >= 2,
                    "reference_tokenwise: cu_seqlens must be 1-D of length N + 1 >= 2");
  const at::Tensor cu = cu_seqlens.to(at::kCPU, at::kLong).contiguous();
  const int64_t N = cu.size(0) - 1;
  const int64_t* c = cu.data_ptr<int64_t>();
  TORCH_CHECK_VALUE(c[0] == 0 && c[N] == T, "reference_tokenwise: cu_seqlens must run from 0 to T");
  for (int64_t i = 0; i < N; ++i) {
    TORCH_CHECK_VALUE(c[i] <= c[i + 1], "reference_tokenwise: cu_seqlens must be non-decreasing");
  }

  const at::Tensor qf = host_f32(q), kf = host_f32(k), vf = host_f32(v), gf = host_f32(g),
                   bf = host_f32(b), wf = host_f32(w);
  at::Tensor h0;
  if (initial_state.has_value() && initial_state->defined()) {
    TORCH_CHECK_VALUE(initial_state->sizes() == at::IntArrayRef({N, Hv, V, K}),
                      "reference_tokenwise: initial_state must be [N, Hv, V, K]");
    h0 = host_f32(*initial_state);
  }

  gdn2::reference::Problem p;
  p.T = T;
  p.N = static_cast<int>(N);
  p.Hq = static_cast<int>(Hq);
  p.Hv = static_cast<int>(Hv);
  p.K = static_cast<int>(K);
  p.V = static_cast<int>(V);
  p.cu_seqlens = c;
  p.q = qf.data_ptr<float>();
  p.k = kf.data_ptr<float>();
  p.g = gf.data_ptr<float>();
  p.b = bf.data_ptr<float>();
  p.v = vf.data_ptr<float>();
  p.w = wf.data_ptr<float>();
  p.initial_state = h0.defined() ? h0.data_ptr<float>() : nullptr;
  p.scale = static_cast<float>(scale);

  const auto f64 = at::TensorOptions().dtype(at::kDouble).device(at::kCPU);
  at::Tensor out = at::empty({T, Hv, V}, f64);
  at::Tensor final_state = at::empty({N, Hv, V, K}, f64);
  gdn2::reference::tokenwise_f64(p, out.data_ptr<double>(), final_state.data_ptr<double>());
  return {out, final_state};
}

}  // namespace

TORCH_LIBRARY(gdn2, m) {
  // The fake (meta) implementations are registered by this Python module; torch requires the
  // two names to agree.
  m.set_python_module("gdn2.ops");
  // max_seqlen is a SymInt (the kernels take it as int64_t): an engine's per-batch hint then stays
  // symbolic under torch.compile, where an `int` made Dynamo specialise and recompile per value.
  m.def(
      "forward(Tensor q, Tensor k, Tensor v, Tensor g, Tensor b, Tensor w, Tensor cu_seqlens, "
      "Tensor? initial_state, float scale, bool output_final_state, bool validate, "
      "int algorithm=0, SymInt max_seqlen=0, Tensor? initial_state_indices=None) -> (Tensor, Tensor)");
  m.def(
      "forward_out(Tensor q, Tensor k, Tensor v, Tensor g, Tensor b, Tensor w, "
      "Tensor cu_seqlens, Tensor? initial_state, Tensor(a!) output, Tensor(b!)? final_state, "
      "float scale, bool validate, int algorithm=0, SymInt max_seqlen=0, Tensor? initial_state_indices=None, "
      "Tensor? final_state_indices=None) -> ()");
  m.def(
      "reference_tokenwise(Tensor q, Tensor k, Tensor v, Tensor g, Tensor b, Tensor w, "
      "Tensor cu_seqlens, Tensor? initial_state, float scale) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(gdn2, CUDA, m) {
  m.impl("forward", &forward);
  m.impl("forward_out", &forward_out);
}

// Host tensors reach the same code, so the contract (not the dispatcher) names the argument
// that is on the wrong device.
TORCH_LIBRARY_IMPL(gdn2, CPU, m) {
  m.impl("forward", &forward);
  m.impl("forward_out", &forward_out);
}

// The reference copies its inputs to the host itself, so it accepts CPU and CUDA tensors alike.
TORCH_LIBRARY_IMPL(gdn2, CompositeExplicitAutograd, m) {
  m.impl("reference_tokenwise", &reference_tokenwise);
}
