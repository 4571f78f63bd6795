// gdn2._eager: the ops of torch_ops.cpp as plain Python functions, for eager calls.
//
// Calling a registered op from Python (torch.ops.gdn2.forward) matches every argument against the
// op's schema and boxes it before the dispatcher runs; for an op of thirteen arguments that is a few
// microseconds of host time per call. These functions take the arguments through pybind11's
// tensor casters and call the same op through the C++ dispatcher (typed, unboxed), so every
// dispatch key still applies: CUDA and CPU kernels, fake tensors and Python modes, autograd's
// fallthrough. python/gdn2/ops.py uses them outside torch.compile (which must see the registered
// op) and falls back to torch.ops when this module is not built (it needs Python's headers).
#include <optional>
#include <tuple>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/utils/pybind.h>

namespace {

using Tensor = at::Tensor;
using OptionalTensor = std::optional<at::Tensor>;

std::tuple<Tensor, Tensor> forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g,
                                   const Tensor& b, const Tensor& w, const Tensor& cu_seqlens,
                                   const OptionalTensor& initial_state, double scale,
                                   bool output_final_state, bool validate, int64_t algorithm,
                                   int64_t max_seqlen, const OptionalTensor& initial_state_indices) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("gdn2::forward", "")
                             .typed<std::tuple<Tensor, Tensor>(
                                 const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                 const Tensor&, const Tensor&, const OptionalTensor&, double, bool, bool,
                                 int64_t, int64_t, const OptionalTensor&)>();
  // Errors become the Python exceptions that torch.ops raises (ValueError for the contract's).
  // Python's lock is released for the call, as torch.ops does: validate=True waits for the GPU, and
  // the dispatcher takes the lock again for Python kernels (fake tensors, Python modes).
  HANDLE_TH_ERRORS
  pybind11::gil_scoped_release unlocked;
  return op.call(q, k, v, g, b, w, cu_seqlens, initial_state, scale, output_final_state, validate, algorithm,
                 max_seqlen, initial_state_indices);
  END_HANDLE_TH_ERRORS_PYBIND
}

void forward_out(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g, const Tensor& b,
                 const Tensor& w, const Tensor& cu_seqlens, const OptionalTensor& initial_state,
                 const Tensor& output, const OptionalTensor& final_state, double scale, bool validate,
                 int64_t algorithm, int64_t max_seqlen, const OptionalTensor& initial_state_indices,
                 const OptionalTensor& final_state_indices) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("gdn2::forward_out", "")
                             .typed<void(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                         const Tensor&, const Tensor&, const Tensor&, const OptionalTensor&,
                                         const Tensor&, const OptionalTensor&, double, bool, int64_t, int64_t,
                                         const OptionalTensor&, const OptionalTensor&)>();
  HANDLE_TH_ERRORS
  pybind11::gil_scoped_release unlocked;  // as in forward
  op.call(q, k, v, g, b, w, cu_seqlens, initial_state, output, final_state, scale, validate, algorithm, max_seqlen,
          initial_state_indices, final_state_indices);
  END_HANDLE_TH_ERRORS_PYBIND
}

}  // namespace

PYBIND11_MODULE(_eager, m) {
  m.doc() = "gdn2's registered ops, called through the C++ dispatcher (eager calls; see gdn2.ops)";
  namespace py = pybind11;
  // The schema's names and default (torch_ops.cpp), so that calls read the same either way.
  m.def("forward", &forward, py::arg("q"), py::arg("k"), py::arg("v"), py::arg("g"), py::arg("b"), py::arg("w"),
        py::arg("cu_seqlens"), py::arg("initial_state"), py::arg("scale"), py::arg("output_final_state"),
        py::arg("validate"), py::arg("algorithm") = 0, py::arg("max_seqlen") = 0,
        py::arg("initial_state_indices") = py::none());
  m.def("forward_out", &forward_out, py::arg("q"), py::arg("k"), py::arg("v"), py::arg("g"), py::arg("b"),
        py::arg("w"), py::arg("cu_seqlens"), py::arg("initial_state"), py::arg("output"), py::arg("final_state"),
        py::arg("scale"), py::arg("validate"), py::arg("algorithm") = 0, py::arg("max_seqlen") = 0,
        py::arg("initial_state_indices") = py::none(), py::arg("final_state_indices") = py::none());
}
