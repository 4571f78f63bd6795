// Uses the installed gdn2 package from plain C++. Runs without a GPU: it calls only what touches no
// device memory (the workspace size and the metadata checks, on views of pointers never read).
#include <cstdio>
#include <cstring>

#include "gdn2/gdn2.h"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what);
    ++failures;
  }
}

void expect_error(const gdn2::ForwardArgs& args, const char* fragment) {
  const gdn2::Status s = gdn2::check_forward(args);
  std::printf("check_forward: \"%s\"\n", s.message);
  expect(s.code == gdn2::StatusCode::kInvalidArgument, "the status is kInvalidArgument");
  expect(std::strstr(s.message, fragment) != nullptr, fragment);
}

}  // namespace

int main() {
  const int64_t T = 300, N = 2, Hq = 2;
  const size_t bytes = gdn2::forward_workspace_bytes(T, N, Hq);
  std::printf("forward_workspace_bytes(%lld, %lld, %lld) = %zu\n", (long long)T, (long long)N,
              (long long)Hq, bytes);
  expect(bytes > 0 && bytes % 256 == 0, "the workspace size is positive and 256-aligned");

  // Never dereferenced: check_forward reads metadata only.
  alignas(256) static char fake_device_memory[256];
  const int64_t key_sizes[3] = {T, Hq, gdn2::kHeadDimK};

  gdn2::ForwardArgs args;
  expect_error(args, "q: expected a tensor");

  args.q = gdn2::contiguous_view(fake_device_memory, gdn2::DType::kBFloat16, /*device=*/-1, 3, key_sizes);
  expect_error(args, "q: expected a CUDA tensor");

  args.q.device = 0;
  args.k = gdn2::contiguous_view(fake_device_memory, gdn2::DType::kFloat32, 0, 3, key_sizes);
  expect_error(args, "k: expected dtype bfloat16, got float32");

  // The plan's workspace: a call forced onto the fused path needs only the flag words.
  const int64_t value_sizes[3] = {T, 2 * Hq, gdn2::kHeadDimV}, cu_sizes[1] = {N + 1};
  args.v = gdn2::contiguous_view(fake_device_memory, gdn2::DType::kBFloat16, 0, 3, value_sizes);
  args.cu_seqlens = gdn2::contiguous_view(fake_device_memory, gdn2::DType::kInt32, 0, 1, cu_sizes);
  args.algorithm = gdn2::Algorithm::kFused;
  const size_t fused_bytes = gdn2::forward_workspace_bytes(args);
  args.algorithm = gdn2::Algorithm::kChunked;
  const size_t chunked_bytes = gdn2::forward_workspace_bytes(args);
  std::printf("forward_workspace_bytes(args): fused %zu, chunked %zu\n", fused_bytes, chunked_bytes);
  expect(fused_bytes > 0 && fused_bytes < chunked_bytes && chunked_bytes == bytes,
         "the fused call's workspace is the flag words, the chunked call's the whole layout");

  if (failures) return 1;
  std::printf("consumer: ok\n");
  return 0;
}
