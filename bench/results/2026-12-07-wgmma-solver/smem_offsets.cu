#include "kernels/fused.cuh"
#include <cstdio>
using namespace gdn2::kernels::fused;
template <int A, int B> void show(const char* n) {
  using S = Smem<A, B>;
  std::printf("%s full=%zx solved=%zx empty=%zx raw_full=%zx formed=%zx stage_empty=%zx size=%zx\n", n, offsetof(S, full), offsetof(S, solved),
              offsetof(S, empty), offsetof(S, raw_full), offsetof(S, formed), offsetof(S, stage_empty), sizeof(S));
}
int main() { show<2, 1>("v128"); show<2, 2>("gvapair"); show<1, 2>("pair"); }
