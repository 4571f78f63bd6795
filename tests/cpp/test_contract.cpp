// The contract through the C++ API, without a GPU: every metadata violation is refused with
// kInvalidArgument and a message that names the argument. check_forward reads no tensor memory,
// so the views below point at distinct, never-dereferenced addresses.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "contract.h"  // choose_algorithm, ProblemShape (internal)
#include "gdn2/gdn2.h"

namespace {

using gdn2::DType;
using gdn2::ForwardArgs;
using gdn2::StatusCode;
using gdn2::TensorView;

constexpr int64_t T = 300, N = 3, Hq = 4, Hv = 8, K = 128, V = 128;

const void* fake_address(int i) { return reinterpret_cast<const void*>(uintptr_t(0x100000000000) + (uintptr_t(i) << 32)); }

TensorView view(int i, DType t, std::initializer_list<int64_t> sizes) {
  int64_t s[4];
  int r = 0;
  for (int64_t x : sizes) s[r++] = x;
  return gdn2::contiguous_view(fake_address(i), t, 0, r, s);
}

ForwardArgs valid_args() {
  ForwardArgs a;
  a.q = view(1, DType::kBFloat16, {T, Hq, K});
  a.k = view(2, DType::kBFloat16, {T, Hq, K});
  a.g = view(3, DType::kFloat32, {T, Hq, K});
  a.b = view(4, DType::kBFloat16, {T, Hq, K});
  a.v = view(5, DType::kBFloat16, {T, Hv, V});
  a.w = view(6, DType::kBFloat16, {T, Hv, V});
  a.cu_seqlens = view(7, DType::kInt32, {N + 1});
  a.initial_state = view(8, DType::kFloat32, {N, Hv, V, K});
  a.output = view(9, DType::kBFloat16, {T, Hv, V});
  a.final_state = view(10, DType::kFloat32, {N, Hv, V, K});
  a.scale = 1.f / std::sqrt(float(K));
  a.workspace = const_cast<void*>(fake_address(11));
  a.workspace_bytes = gdn2::forward_workspace_bytes(T, N, Hq);
  return a;
}

struct BadCase {
  const char* name;
  const char* argument;  // the message must start with "<argument>: "
  std::function<void(ForwardArgs&)> mutate;
};

TensorView transposed_last(TensorView t) {
  std::swap(t.sizes[t.rank - 1], t.sizes[t.rank - 2]);
  std::swap(t.strides[t.rank - 1], t.strides[t.rank - 2]);
  return t;
}

TensorView offset(TensorView t, int bytes) {
  t.data = static_cast<const char*>(t.data) + bytes;
  return t;
}

const BadCase kBadCases[] = {
    {"q dtype", "q", [](ForwardArgs& a) { a.q.dtype = DType::kFloat32; }},
    {"k dtype", "k", [](ForwardArgs& a) { a.k.dtype = DType::kFloat32; }},
    {"g dtype", "g", [](ForwardArgs& a) { a.g.dtype = DType::kBFloat16; }},
    {"b dtype", "b", [](ForwardArgs& a) { a.b.dtype = DType::kOther; }},
    {"v dtype", "v", [](ForwardArgs& a) { a.v.dtype = DType::kFloat32; }},
    {"w dtype", "w", [](ForwardArgs& a) { a.w.dtype = DType::kInt32; }},
    {"cu_seqlens dtype", "cu_seqlens", [](ForwardArgs& a) { a.cu_seqlens.dtype = DType::kFloat32; }},
    {"initial_state dtype", "initial_state", [](ForwardArgs& a) { a.initial_state.dtype = DType::kInt32; }},
    {"output dtype", "output", [](ForwardArgs& a) { a.output.dtype = DType::kFloat32; }},
    {"final_state dtype", "final_state", [](ForwardArgs& a) { a.final_state.dtype = DType::kOther; }},
    {"q rank", "q", [](ForwardArgs& a) { a.q = view(1, DType::kBFloat16, {T * Hq, K}); }},
    {"v rank", "v", [](ForwardArgs& a) { a.v = view(5, DType::kBFloat16, {1, T, Hv, V}); }},
    {"cu_seqlens rank", "cu_seqlens", [](ForwardArgs& a) { a.cu_seqlens = view(7, DType::kInt32, {1, N + 1}); }},
    {"initial_state rank", "initial_state", [](ForwardArgs& a) { a.initial_state = view(8, DType::kFloat32, {N * Hv, V, K}); }},
    {"K != 128", "q", [](ForwardArgs& a) { a.q = view(1, DType::kBFloat16, {T, Hq, 64}); }},
    {"V != 128", "v", [](ForwardArgs& a) { a.v = view(5, DType::kBFloat16, {T, Hv, 64}); }},
    {"k shape", "k", [](ForwardArgs& a) { a.k = view(2, DType::kBFloat16, {T, Hq + 1, K}); }},
    {"g tokens", "g", [](ForwardArgs& a) { a.g = view(3, DType::kFloat32, {T - 1, Hq, K}); }},
    {"b shape", "b", [](ForwardArgs& a) { a.b = view(4, DType::kBFloat16, {T, Hq, 64}); }},
    {"v tokens", "v", [](ForwardArgs& a) { a.v = view(5, DType::kBFloat16, {T + 1, Hv, V}); }},
    {"Hv not a multiple of Hq", "v", [](ForwardArgs& a) {
       a.v = view(5, DType::kBFloat16, {T, 6, V});
       a.w = view(6, DType::kBFloat16, {T, 6, V});
     }},
    {"w shape", "w", [](ForwardArgs& a) { a.w = view(6, DType::kBFloat16, {T, Hv / 2, V}); }},
    {"cu_seqlens too long", "cu_seqlens", [](ForwardArgs& a) { a.cu_seqlens = view(7, DType::kInt32, {T + 2}); }},
    {"cu_seqlens too short", "cu_seqlens", [](ForwardArgs& a) { a.cu_seqlens = view(7, DType::kInt64, {1}); }},
    {"initial_state N", "initial_state", [](ForwardArgs& a) { a.initial_state = view(8, DType::kFloat32, {N + 1, Hv, V, K}); }},
    {"initial_state K-first", "initial_state", [](ForwardArgs& a) { a.initial_state = transposed_last(a.initial_state); }},
    {"output shape", "output", [](ForwardArgs& a) { a.output = view(9, DType::kBFloat16, {T, Hq, V}); }},
    {"final_state shape", "final_state", [](ForwardArgs& a) { a.final_state = view(10, DType::kFloat32, {N, Hv, V, 64}); }},
    {"q on host", "q", [](ForwardArgs& a) { a.q.device = -1; }},
    {"v on host", "v", [](ForwardArgs& a) { a.v.device = -1; }},
    {"k on another device", "k", [](ForwardArgs& a) { a.k.device = 1; }},
    {"output on another device", "output", [](ForwardArgs& a) { a.output.device = 1; }},
    {"q non-contiguous", "q", [](ForwardArgs& a) { a.q = transposed_last(view(1, DType::kBFloat16, {T, K, Hq})); }},
    {"w non-contiguous", "w", [](ForwardArgs& a) { a.w.strides[0] *= 2; }},
    {"q misaligned", "q", [](ForwardArgs& a) { a.q = offset(a.q, 2); }},
    {"g misaligned", "g", [](ForwardArgs& a) { a.g = offset(a.g, 4); }},
    {"final_state misaligned", "final_state", [](ForwardArgs& a) { a.final_state = offset(a.final_state, 4); }},
    {"float32 initial_state 8-byte aligned", "initial_state", [](ForwardArgs& a) { a.initial_state = offset(a.initial_state, 8); }},
    {"bfloat16 final_state 4-byte aligned", "final_state", [](ForwardArgs& a) {
       a.final_state = offset(view(10, DType::kBFloat16, {N, Hv, V, K}), 4);
     }},
    {"bfloat16 pool's stride not a multiple of 4", "initial_state", [](ForwardArgs& a) {
       a.initial_state = view(8, DType::kBFloat16, {64, Hv, V, K});
       a.initial_state.strides[0] = Hv * V * K + 2;
       a.initial_state_indices = view(12, DType::kInt32, {N});
     }},
    {"final_state is initial_state's bytes as another dtype", "final_state", [](ForwardArgs& a) {
       a.final_state = a.initial_state;
       a.final_state.dtype = DType::kBFloat16;
     }},
    {"output overlaps v", "output", [](ForwardArgs& a) { a.output.data = a.v.data; }},
    {"output overlaps q (partly)", "output", [](ForwardArgs& a) { a.output.data = offset(a.q, 4096).data; }},
    {"final_state overlaps initial_state (partly)", "final_state", [](ForwardArgs& a) {
       a.final_state = offset(a.initial_state, 4096);
     }},
    {"final_state is initial_state with another shape", "final_state", [](ForwardArgs& a) {
       // The same bytes seen as a pool of N slots with indices: not the same view, so refused.
       a.final_state = a.initial_state;
       a.final_state.strides[0] += 4;
     }},
    {"final_state overlaps output", "final_state", [](ForwardArgs& a) { a.final_state.data = a.output.data; }},
    {"scale NaN", "scale", [](ForwardArgs& a) { a.scale = NAN; }},
    {"scale Inf", "scale", [](ForwardArgs& a) { a.scale = INFINITY; }},
    {"algorithm 4", "algorithm", [](ForwardArgs& a) { a.algorithm = static_cast<gdn2::Algorithm>(4); }},
    {"algorithm -1", "algorithm", [](ForwardArgs& a) { a.algorithm = static_cast<gdn2::Algorithm>(-1); }},
    {"max_seqlen -1", "max_seqlen", [](ForwardArgs& a) { a.max_seqlen = -1; }},
    {"missing q", "q", [](ForwardArgs& a) { a.q = TensorView{}; }},
    {"missing output", "output", [](ForwardArgs& a) { a.output = TensorView{}; }},
    {"missing cu_seqlens", "cu_seqlens", [](ForwardArgs& a) { a.cu_seqlens = TensorView{}; }},
    {"workspace too small", "workspace", [](ForwardArgs& a) { a.workspace_bytes = gdn2::forward_workspace_bytes(a) - 1; }},
    {"workspace too small for chunked", "workspace", [](ForwardArgs& a) {
       a.algorithm = gdn2::Algorithm::kChunked;
       a.workspace_bytes = gdn2::forward_workspace_bytes(T, N, Hq) - 1;
     }},
    {"workspace too small for fused", "workspace", [](ForwardArgs& a) {
       a.algorithm = gdn2::Algorithm::kFused;
       a.workspace_bytes = gdn2::forward_workspace_bytes(a) - 1;
     }},
    {"workspace null", "workspace", [](ForwardArgs& a) { a.workspace = nullptr; }},
    // State pools and their indices (ForwardArgs::initial_state_indices).
    {"initial_state_indices without initial_state", "initial_state_indices", [](ForwardArgs& a) {
       a.initial_state = TensorView{};
       a.initial_state_indices = view(12, DType::kInt32, {N});
     }},
    {"final_state_indices without final_state", "final_state_indices", [](ForwardArgs& a) {
       a.final_state = TensorView{};
       a.final_state_indices = view(13, DType::kInt32, {N});
     }},
    {"initial_state_indices int64", "initial_state_indices", [](ForwardArgs& a) {
       a.initial_state_indices = view(12, DType::kInt64, {N});
     }},
    {"final_state_indices of N + 1", "final_state_indices", [](ForwardArgs& a) {
       a.final_state_indices = view(13, DType::kInt32, {N + 1});
     }},
    {"initial_state_indices 2-D", "initial_state_indices", [](ForwardArgs& a) {
       a.initial_state_indices = view(12, DType::kInt32, {1, N});
     }},
    {"final_state_indices on host", "final_state_indices", [](ForwardArgs& a) {
       a.final_state_indices = view(13, DType::kInt32, {N});
       a.final_state_indices.device = -1;
     }},
    {"initial_state_indices strided", "initial_state_indices", [](ForwardArgs& a) {
       a.initial_state_indices = view(12, DType::kInt32, {N});
       a.initial_state_indices.strides[0] = 2;
     }},
    {"pool without slots", "initial_state", [](ForwardArgs& a) {
       a.initial_state = view(8, DType::kFloat32, {0, Hv, V, K});
       a.initial_state_indices = view(12, DType::kInt32, {N});
     }},
    {"pool of other heads", "final_state", [](ForwardArgs& a) {
       a.final_state = view(10, DType::kFloat32, {7, Hq, V, K});
       a.final_state_indices = view(13, DType::kInt32, {N});
     }},
    {"state slots closer than a slot", "initial_state", [](ForwardArgs& a) { a.initial_state.strides[0] -= 4; }},
    {"state slots not 16-byte apart", "final_state", [](ForwardArgs& a) { a.final_state.strides[0] += 2; }},
    {"state slot not contiguous", "initial_state", [](ForwardArgs& a) { a.initial_state.strides[1] += 4; }},
    {"strided final_state overlaps output", "final_state", [](ForwardArgs& a) {
       // Slots far apart: the last slot's bytes reach into output (a view 2^32 bytes further on).
       a.final_state.strides[0] = (int64_t(1) << 31) / 4 / (N - 1) + 4096;
       a.final_state.strides[0] -= a.final_state.strides[0] % 4;
       a.output.data = static_cast<const char*>(a.final_state.data) + (int64_t(1) << 31);
     }},
    {"pool whose span overflows int64", "final_state", [](ForwardArgs& a) {
       // 2^50 slots of 2^17 elements: (P - 1) * stride wraps in int64, and the wrapped span would
       // hide the overlap with output (placed in the pool's first slot).
       a.final_state = view(10, DType::kFloat32, {int64_t(1) << 50, Hv, V, K});
       a.final_state_indices = view(13, DType::kInt32, {N});
       a.output.data = a.final_state.data;
     }},
    {"output overlaps final_state_indices", "output", [](ForwardArgs& a) {
       a.final_state_indices = view(13, DType::kInt32, {N});
       a.output.data = a.final_state_indices.data;
     }},
    {"workspace overlaps output", "workspace", [](ForwardArgs& a) { a.workspace = const_cast<void*>(a.output.data); }},
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, RefusedWithArgumentName) {
  ForwardArgs a = valid_args();
  GetParam().mutate(a);
  const gdn2::Status s = gdn2::check_forward(a);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << GetParam().name << ": " << s.message;
  const std::string prefix = std::string(GetParam().argument) + ": ";
  EXPECT_EQ(std::string(s.message).rfind(prefix, 0), 0u)
      << GetParam().name << ": message does not start with '" << prefix << "': " << s.message;
  // forward() refuses the same way, before touching the (fake) memory or launching anything.
  const gdn2::Status f = gdn2::forward(a, nullptr);
  EXPECT_EQ(f.code, StatusCode::kInvalidArgument);
  EXPECT_STREQ(f.message, s.message);
}

INSTANTIATE_TEST_SUITE_P(Matrix, BadInput, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           std::string n = info.param.name;
                           for (char& c : n) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(Contract, AtLeastFortyDistinctBadInputs) { EXPECT_GE(std::size(kBadCases), 40u); }

// A valid call passes every metadata rule; what remains is the device check, which on a machine
// without a Hopper GPU refuses with kUnsupportedDevice (never kInvalidArgument).
TEST(Contract, ValidArgumentsPassMetadataChecks) {
  using gdn2::Algorithm;
  for (bool with_initial : {false, true})
    for (bool with_final : {false, true})
      for (Algorithm algorithm : {Algorithm::kAuto, Algorithm::kChunked, Algorithm::kRecurrent, Algorithm::kFused}) {
        ForwardArgs a = valid_args();
        if (!with_initial) a.initial_state = TensorView{};
        if (!with_final) a.final_state = TensorView{};
        a.algorithm = algorithm;
        const gdn2::Status s = gdn2::check_forward(a);
        EXPECT_TRUE(s.code == StatusCode::kOk || s.code == StatusCode::kUnsupportedDevice) << s.message;
      }
}

// State pools: any number of slots, slots further apart than their size, in place (final_state
// the same view as initial_state), with or without indices.
TEST(Contract, StatePoolsAndInPlaceAccepted) {
  struct Case {
    const char* name;
    std::function<void(ForwardArgs&)> mutate;
  };
  const Case cases[] = {
      {"in place", [](ForwardArgs& a) { a.final_state = a.initial_state; }},
      {"pools with indices", [](ForwardArgs& a) {
         a.initial_state = view(8, DType::kFloat32, {1000, Hv, V, K});
         a.final_state = view(10, DType::kFloat32, {1, Hv, V, K});
         a.initial_state_indices = view(12, DType::kInt32, {N});
         a.final_state_indices = view(13, DType::kInt32, {N});
       }},
      {"one pool in place, one index tensor", [](ForwardArgs& a) {
         a.initial_state = view(8, DType::kFloat32, {64, Hv, V, K});
         a.final_state = a.initial_state;
         a.initial_state_indices = view(12, DType::kInt32, {N});
         a.final_state_indices = a.initial_state_indices;
       }},
      {"slots inside larger pages", [](ForwardArgs& a) {
         a.initial_state = view(8, DType::kFloat32, {64, Hv, V, K});
         a.initial_state.strides[0] = Hv * V * K + 1024;
         a.final_state = a.initial_state;
         a.initial_state_indices = view(12, DType::kInt32, {N});
         a.final_state_indices = a.initial_state_indices;
       }},
      {"strided states without indices", [](ForwardArgs& a) { a.final_state.strides[0] += 4; }},
      {"indices for the initial state only", [](ForwardArgs& a) {
         a.initial_state = view(8, DType::kFloat32, {5, Hv, V, K});
         a.initial_state_indices = view(12, DType::kInt32, {N});
       }},
      {"bfloat16 states", [](ForwardArgs& a) {
         a.initial_state = view(8, DType::kBFloat16, {N, Hv, V, K});
         a.final_state = view(10, DType::kBFloat16, {N, Hv, V, K});
       }},
      {"a bfloat16 pool in place, 8-byte aligned, slots inside pages", [](ForwardArgs& a) {
         a.initial_state = offset(view(8, DType::kBFloat16, {64, Hv, V, K}), 8);
         a.initial_state.strides[0] = Hv * V * K + 4;
         a.final_state = a.initial_state;
         a.initial_state_indices = view(12, DType::kInt32, {N});
         a.final_state_indices = a.initial_state_indices;
       }},
      {"bfloat16 initial state, float32 final state", [](ForwardArgs& a) {
         a.initial_state = view(8, DType::kBFloat16, {N, Hv, V, K});
       }},
  };
  for (const Case& c : cases) {
    ForwardArgs a = valid_args();
    c.mutate(a);
    const gdn2::Status s = gdn2::check_forward(a);
    EXPECT_TRUE(s.code == StatusCode::kOk || s.code == StatusCode::kUnsupportedDevice) << c.name << ": " << s.message;
  }
}

TEST(Contract, Int64OffsetsAndGvaRatiosAccepted) {
  for (int64_t ratio : {1, 2, 3, 4}) {
    ForwardArgs a = valid_args();
    a.cu_seqlens.dtype = DType::kInt64;
    a.v = view(5, DType::kBFloat16, {T, Hq * ratio, V});
    a.w = view(6, DType::kBFloat16, {T, Hq * ratio, V});
    a.output = view(9, DType::kBFloat16, {T, Hq * ratio, V});
    a.initial_state = view(8, DType::kFloat32, {N, Hq * ratio, V, K});
    a.final_state = view(10, DType::kFloat32, {N, Hq * ratio, V, K});
    const gdn2::Status s = gdn2::check_forward(a);
    EXPECT_TRUE(s.code == StatusCode::kOk || s.code == StatusCode::kUnsupportedDevice) << s.message;
  }
}

TEST(Contract, WorkspaceGrowsWithTokensSequencesAndHeads) {
  const size_t base = gdn2::forward_workspace_bytes(1024, 1, 16);
  EXPECT_GT(gdn2::forward_workspace_bytes(2048, 1, 16), base);
  EXPECT_GT(gdn2::forward_workspace_bytes(1024, 64, 16), base);
  EXPECT_GT(gdn2::forward_workspace_bytes(1024, 1, 32), base);
  EXPECT_EQ(base % 256, 0u);
  // Sizes no call can have give 0, not a plausible number.
  for (const auto& bad : {std::vector<int64_t>{0, 1, 16}, {-1, 1, 16}, {1024, 0, 16}, {1024, 1025, 16},
                          {1024, 1, 0}, {1024, -2, 16}, {1024, 1, -16}})
    EXPECT_EQ(gdn2::forward_workspace_bytes(bad[0], bad[1], bad[2]), 0u) << bad[0] << " " << bad[1] << " " << bad[2];
  // The largest sizes the contract allows: about 1.9e19 bytes, more than size_t holds; the size
  // saturates instead of wrapping to a small number that a fake view could satisfy.
  EXPECT_EQ(gdn2::forward_workspace_bytes(gdn2::kMaxTokens, gdn2::kMaxSequences, gdn2::kMaxHeads), SIZE_MAX);
  EXPECT_LT(gdn2::forward_workspace_bytes(gdn2::kMaxTokens, 1, 16), SIZE_MAX);
}

// The flag words come first, so that a workspace of the flags alone (what a call without the
// chunked path needs) is a prefix of the whole layout; the chunked path's regions are 256-aligned.
TEST(Contract, WorkspaceLayoutFlagsFirst) {
  const gdn2::WorkspaceLayout ws = gdn2::workspace_layout(T, N, Hq);
  EXPECT_EQ(ws.flags, 0u);
  EXPECT_EQ(ws.flags_bytes, 1280u);  // 16 bytes, then a fault word per phase-1 CTA (256), 256-aligned
  EXPECT_GE(ws.flags_bytes, gdn2::kFaultWordsOffset + sizeof(int) * gdn2::kernels::kMaxPhase1Ctas);
  EXPECT_EQ(ws.factors, ws.flags_bytes);
  for (size_t off : {ws.factors, ws.ready, ws.order, ws.total_bytes}) EXPECT_EQ(off % 256, 0u);
  EXPECT_LT(ws.factors, ws.ready);
  EXPECT_LT(ws.ready, ws.order);
  EXPECT_LT(ws.order, ws.total_bytes);
  EXPECT_EQ(ws.total_bytes, gdn2::forward_workspace_bytes(T, N, Hq));
}

// forward_workspace_bytes(args): the whole layout where the plan may run the chunked path, the
// flags alone where it cannot; check_forward asks for exactly that, and accepts it.
TEST(Contract, WorkspaceOfThePlan) {
  using gdn2::Algorithm;
  const size_t full = gdn2::forward_workspace_bytes(T, N, Hq), flags = gdn2::workspace_layout(T, N, Hq).flags_bytes;
  struct Case {
    Algorithm algorithm;
    int64_t hint;
    size_t expected;
  };
  // valid_args (300 tokens in 3 sequences of 4 key and 8 value heads): the hint 8 settles kAuto on
  // the recurrent or fused path; the true longest length 298 on the chunked path; without a hint
  // the device may choose the chunked path.
  ForwardArgs probe = valid_args();
  const gdn2::ProblemShape sh = gdn2::shape_of(probe);
  probe.max_seqlen = 8;
  ASSERT_NE(int(gdn2::choose_algorithm(probe, sh, 132)), int(Algorithm::kChunked));
  probe.max_seqlen = 298;
  ASSERT_EQ(int(gdn2::choose_algorithm(probe, sh, 132)), int(Algorithm::kChunked));
  const Case cases[] = {
      {Algorithm::kChunked, 0, full},   {Algorithm::kFused, 0, flags}, {Algorithm::kRecurrent, 0, flags},
      {Algorithm::kAuto, 8, flags},     {Algorithm::kAuto, 298, full}, {Algorithm::kAuto, 0, full},
      {Algorithm::kRecurrent, 298, flags},
  };
  for (const Case& c : cases) {
    ForwardArgs a = valid_args();
    a.algorithm = c.algorithm;
    a.max_seqlen = c.hint;
    const std::string name = "algorithm " + std::to_string(int(c.algorithm)) + " hint " + std::to_string(c.hint);
    ASSERT_EQ(gdn2::forward_workspace_bytes(a), c.expected) << name;
    a.workspace_bytes = c.expected;
    gdn2::Status s = gdn2::check_forward(a);
    EXPECT_TRUE(s.code == StatusCode::kOk || s.code == StatusCode::kUnsupportedDevice) << name << ": " << s.message;
    a.workspace_bytes = c.expected - 1;
    s = gdn2::check_forward(a);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << name;
    EXPECT_EQ(std::string(s.message).rfind("workspace: expected at least " + std::to_string(c.expected) + " bytes", 0), 0u)
        << name << ": " << s.message;
  }
  // The overlap check covers the plan's bytes only: a flags-only workspace may end where an input
  // begins.
  ForwardArgs a = valid_args();
  a.algorithm = Algorithm::kFused;
  a.workspace = const_cast<char*>(static_cast<const char*>(a.q.data)) - flags;
  a.workspace_bytes = flags;
  const gdn2::Status s = gdn2::check_forward(a);
  EXPECT_TRUE(s.code == StatusCode::kOk || s.code == StatusCode::kUnsupportedDevice) << s.message;
  a.workspace = const_cast<char*>(static_cast<const char*>(a.q.data)) - flags + 256;
  EXPECT_EQ(gdn2::check_forward(a).code, StatusCode::kInvalidArgument);
}

// Where the shapes are not a valid call's, forward_workspace_bytes(args) gives 0 and never reads
// past the views (check_forward then names the argument).
TEST(Contract, WorkspaceOfThePlanRefusesInvalidShapes) {
  const std::function<void(ForwardArgs&)> mutations[] = {
      [](ForwardArgs& a) { a.q = TensorView{}; },
      [](ForwardArgs& a) { a.q.rank = 2; },
      [](ForwardArgs& a) { a.v.rank = 4; },
      [](ForwardArgs& a) { a.cu_seqlens.rank = 2; },
      [](ForwardArgs& a) { a.cu_seqlens.sizes[0] = 1; },        // N = 0
      [](ForwardArgs& a) { a.cu_seqlens.sizes[0] = INT64_MIN; },
      [](ForwardArgs& a) { a.cu_seqlens.sizes[0] = T + 2; },    // N > T
      [](ForwardArgs& a) { a.v.sizes[1] = Hq + 1; },            // Hv not a multiple of Hq
      [](ForwardArgs& a) { a.q.device = -1; },                  // host memory
      [](ForwardArgs& a) { a.max_seqlen = -1; },
      [](ForwardArgs& a) { a.algorithm = static_cast<gdn2::Algorithm>(7); },
  };
  for (size_t i = 0; i < std::size(mutations); ++i) {
    ForwardArgs a = valid_args();
    mutations[i](a);
    EXPECT_EQ(gdn2::forward_workspace_bytes(a), 0u) << "mutation " << i;
    EXPECT_EQ(gdn2::check_forward(a).code, StatusCode::kInvalidArgument) << "mutation " << i;
  }
}

// The largest problems the contract accepts, and one sequence more than it does: 2^31 - 1 tokens of
// one head in 2^30 sequences pass the metadata checks (views spread 2^44 bytes apart, so that none
// overlaps another); 2^30 + 1 sequences are refused, naming cu_seqlens (the kernels' int32 loops and
// bisections over the sequences stay in range below that).
TEST(Contract, AtMostTwoToTheThirtySequences) {
  const int64_t t = gdn2::kMaxTokens;
  auto at = [](int i) { return reinterpret_cast<const void*>(uintptr_t(i) << 44); };
  auto big = [&](int i, DType d, std::initializer_list<int64_t> sizes) {
    int64_t s[4];
    int r = 0;
    for (int64_t x : sizes) s[r++] = x;
    return gdn2::contiguous_view(at(i), d, 0, r, s);
  };
  for (int64_t n : {gdn2::kMaxSequences, gdn2::kMaxSequences + 1}) {
    ForwardArgs a;
    a.q = big(1, DType::kBFloat16, {t, 1, K});
    a.k = big(2, DType::kBFloat16, {t, 1, K});
    a.g = big(3, DType::kFloat32, {t, 1, K});
    a.b = big(4, DType::kBFloat16, {t, 1, K});
    a.v = big(5, DType::kBFloat16, {t, 1, V});
    a.w = big(6, DType::kBFloat16, {t, 1, V});
    a.cu_seqlens = big(7, DType::kInt64, {n + 1});
    a.output = big(9, DType::kBFloat16, {t, 1, V});
    a.algorithm = gdn2::Algorithm::kRecurrent;
    a.workspace = const_cast<void*>(at(11));
    a.workspace_bytes = 1280;
    const gdn2::Status s = gdn2::check_forward(a);
    if (n == gdn2::kMaxSequences) {
      EXPECT_EQ(gdn2::forward_workspace_bytes(a), 1280u);
      EXPECT_TRUE(s.code == StatusCode::kOk || s.code == StatusCode::kUnsupportedDevice) << s.message;
    } else {
      EXPECT_EQ(gdn2::forward_workspace_bytes(a), 0u);
      EXPECT_EQ(gdn2::forward_workspace_bytes(t, n, 1), 0u);
      EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
      EXPECT_EQ(std::string(s.message).rfind("cu_seqlens: expected at most 2^30 sequences", 0), 0u) << s.message;
    }
  }
}

// A half-precision tensor where bf16 is expected is named as such (a common mistake).
TEST(Contract, Float16IsNamed) {
  ForwardArgs a = valid_args();
  a.q.dtype = DType::kFloat16;
  const gdn2::Status s = gdn2::check_forward(a);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_STREQ(s.message, "q: expected dtype bfloat16, got float16");
}

// The C++ default scale is K^-0.5, as in the Python API and FLA (a forgotten scale is not 0).
TEST(Contract, DefaultScaleIsInverseSqrtK) {
  EXPECT_FLOAT_EQ(ForwardArgs{}.scale, 1.f / std::sqrt(float(gdn2::kHeadDimK)));
}

}  // namespace

// kAuto's choice (src/contract.cpp, choose_algorithm) on 132 SMs: the same table as the GPU test
// (tests/python/test_forward_gpu.py, AUTO), which checks it bitwise against the forced algorithms.
// Where the device chooses (plan_launch: no hint, several sequences), the path that runs is the one
// for the true longest length (`runs`: 20 x 4 tokens and 4 x 512), which is what the GPU test
// expects; the host's choose_algorithm, assuming T - N + 1, says fused (20 x 4) or chunked (4 x 512)
// there. ((100, 37, 64) was such a case until the pair form's refit: the pair form's estimate at
// T - N + 1 = 199 tokens now wins, so the host picks it.)
TEST(AutoChoice, PicksTheSmallestEstimate) {
  using gdn2::Algorithm;
  struct Choice {
    std::vector<int64_t> lengths;
    int64_t hq, hv, hint;
    Algorithm expected;
    Algorithm runs = Algorithm::kAuto;  // where the device chooses: the path that runs (else `expected`)
  };
  const std::vector<int64_t> ones32(32, 1), fours20(20, 4), ones16(16, 1), sixteens8(8, 16);
  const Choice choices[] = {
      {{64}, 16, 16, 0, Algorithm::kFused},         {ones32, 2, 4, 0, Algorithm::kRecurrent},
      {{40, 1, 1}, 4, 8, 0, Algorithm::kFused},     {{64}, 16, 32, 0, Algorithm::kFused},
      {{65}, 16, 16, 0, Algorithm::kFused},         {{96}, 16, 16, 96, Algorithm::kFused},
      {fours20, 4, 8, 0, Algorithm::kFused, Algorithm::kRecurrent}, {fours20, 4, 8, 4, Algorithm::kRecurrent},
      {ones16, 4, 16, 0, Algorithm::kFused},        {{100, 37, 64}, 4, 8, 0, Algorithm::kFused},
      {sixteens8, 16, 16, 16, Algorithm::kFused},   {{16}, 16, 16, 0, Algorithm::kRecurrent},
      {{257}, 16, 16, 0, Algorithm::kChunked},      {{192}, 16, 16, 0, Algorithm::kChunked},
      {{128}, 16, 32, 0, Algorithm::kFused},        {{96}, 16, 64, 0, Algorithm::kFused},
      {{512, 512, 512, 512}, 16, 16, 512, Algorithm::kFused},
      {{512, 512, 512, 512}, 16, 16, 0, Algorithm::kChunked, Algorithm::kFused},
      {{1024, 1024}, 16, 16, 1024, Algorithm::kFused},
      {std::vector<int64_t>(512, 1), 16, 16, 1, Algorithm::kFused},
      {std::vector<int64_t>(128, 1), 16, 64, 1, Algorithm::kFused},
      {ones32, 16, 16, 1, Algorithm::kFused},
  };
  for (const Choice& c : choices) {
    gdn2::ProblemShape sh;
    sh.N = int64_t(c.lengths.size());
    for (int64_t n : c.lengths) sh.T += n;
    sh.Hq = c.hq, sh.Hv = c.hv;
    ForwardArgs a;
    a.max_seqlen = c.hint;
    const std::string name = "N " + std::to_string(sh.N) + " T " + std::to_string(sh.T) + " Hq " +
                             std::to_string(c.hq) + " Hv " + std::to_string(c.hv) + " hint " + std::to_string(c.hint);
    EXPECT_EQ(int(gdn2::choose_algorithm(a, sh, 132)), int(c.expected)) << name;
    const gdn2::LaunchPlan plan = gdn2::plan_launch(a, sh, 132);
    const int64_t longest = *std::max_element(c.lengths.begin(), c.lengths.end());
    const Algorithm runs = plan.on_device() && longest < plan.length ? plan.shorter : plan.longer;
    EXPECT_EQ(int(runs), int(c.runs != Algorithm::kAuto ? c.runs : c.expected)) << name;
    for (Algorithm forced : {Algorithm::kChunked, Algorithm::kRecurrent, Algorithm::kFused}) {
      a.algorithm = forced;
      EXPECT_EQ(int(gdn2::choose_algorithm(a, sh, 132)), int(forced));
    }
  }
}

// One long sequence takes the chunked path on 114 and 132 SMs, with or without its (true) hint:
// its fused chain is the whole sequence on one CTA per head. (On 78 SMs the two estimates of 32K
// tokens of 32 value heads are within 1.3% of each other since the pair form's refit: fused
// 1.05 x (7.63 + 1.034 x 2,048 blocks) = 2,232 us, chunked 4.3 + 9.883 x 106 rounds of phase 1 +
// 2.359 x 512 chunks of the 64-channel pass, which cannot run beside phase 1 there, = 2,260 us;
// no such part was measured, so that near-tie is not pinned.) A batch of long sequences takes the fused path
// when the hint tells kAuto that the sequences are short enough for their chains to fill the GPU,
// and the chunked path without it (T - N + 1 is then the longest length kAuto must assume).
TEST(AutoChoice, LongSequences) {
  for (int64_t sms : {114, 132})
    for (int64_t hint : {0, 32768}) {
      gdn2::ProblemShape sh;
      sh.T = 32768, sh.N = 1, sh.Hq = 16, sh.Hv = 32;
      ForwardArgs a;
      a.max_seqlen = hint;
      EXPECT_EQ(int(gdn2::choose_algorithm(a, sh, sms)), int(gdn2::Algorithm::kChunked)) << sms << " " << hint;
    }
  gdn2::ProblemShape batch;  // B8x2K (SPEC.md): measured 304.2 us fused, 472.4 chunked (graph)
  batch.T = 16384, batch.N = 8, batch.Hq = 16, batch.Hv = 16;
  ForwardArgs a;
  a.max_seqlen = 2048;
  EXPECT_EQ(int(gdn2::choose_algorithm(a, batch, 132)), int(gdn2::Algorithm::kFused));
  a.max_seqlen = 0;
  EXPECT_EQ(int(gdn2::choose_algorithm(a, batch, 132)), int(gdn2::Algorithm::kChunked));
}

// kAuto plans the chunked path only where its workspace is at most 4 times the call's token bytes
// (or 1 GiB; src/contract.cpp, auto_candidates): many short sequences would ask for a factor block
// each. Past 4,096 sequences (no fused path) 16,384 sequences of 4 tokens of 16 key and 32 value
// heads asked for 36.7 GB (the device choosing between the recurrent and chunked paths) against
// 3.0 GB of tokens; kAuto now takes the recurrent path there with 1,280 bytes, and an explicit
// kChunked still gets its whole workspace.
TEST(AutoChoice, ChunkedOnlyWithinItsWorkspaceBound) {
  using gdn2::Algorithm;
  auto args_of = [](int64_t n, int64_t len, int64_t hq, int64_t hv, int64_t hint) {
    const int64_t t = n * len;
    ForwardArgs a;
    a.q = view(1, DType::kBFloat16, {t, hq, K});
    a.v = view(5, DType::kBFloat16, {t, hv, V});
    a.cu_seqlens = view(7, DType::kInt32, {n + 1});
    a.max_seqlen = hint;
    return a;
  };
  auto token_bytes = [](const ForwardArgs& a) {
    return double(a.q.sizes[0]) * double(a.q.sizes[1] * K * 10 + a.v.sizes[1] * V * 6);
  };
  const size_t flags = gdn2::workspace_layout(1, 1, 1).flags_bytes;
  // No hint: the sizes leave the chunked path possible (one sequence of 49,153 tokens), but its
  // workspace is 12 times the tokens' bytes.
  ForwardArgs many = args_of(16384, 4, 16, 32, 0);
  const gdn2::ProblemShape sh = gdn2::shape_of(many);
  const size_t full = gdn2::forward_workspace_bytes(sh.T, sh.N, sh.Hq);
  ASSERT_GT(double(full), 4 * token_bytes(many));
  const gdn2::LaunchPlan plan = gdn2::plan_launch(many, sh, 132);
  EXPECT_NE(int(plan.shorter), int(Algorithm::kChunked));
  EXPECT_NE(int(plan.longer), int(Algorithm::kChunked));
  EXPECT_EQ(gdn2::forward_workspace_bytes(many), flags);
  many.algorithm = Algorithm::kChunked;
  EXPECT_EQ(gdn2::forward_workspace_bytes(many), full);
  // With the hint, on either side of the bound (16 key and value heads, 16,384 sequences): 16 tokens
  // each, 5.0 times the tokens' bytes, take the recurrent path; 32 tokens, 3.0 times, the chunked one,
  // which the estimates prefer in both.
  for (int64_t len : {16, 32}) {
    const ForwardArgs a = args_of(16384, len, 16, 16, len);
    const gdn2::ProblemShape s = gdn2::shape_of(a);
    const double ratio = double(gdn2::forward_workspace_bytes(s.T, s.N, s.Hq)) / token_bytes(a);
    const Algorithm expected = len == 16 ? Algorithm::kRecurrent : Algorithm::kChunked;
    EXPECT_EQ(ratio > 4, len == 16) << len << ": " << ratio;
    EXPECT_EQ(int(gdn2::choose_algorithm(a, s, 132)), int(expected)) << len;
    EXPECT_EQ(gdn2::forward_workspace_bytes(a), expected == Algorithm::kChunked ? gdn2::forward_workspace_bytes(s.T, s.N, s.Hq) : flags) << len;
  }
  // Below 1 GiB the bound does not apply: 256 sequences of 8 tokens of 4 key heads (ratio 6.5)
  // still leave the device the choice between the fused and chunked paths.
  ForwardArgs small = args_of(256, 8, 4, 8, 0);
  const gdn2::ProblemShape ss = gdn2::shape_of(small);
  ASSERT_GT(double(gdn2::forward_workspace_bytes(ss.T, ss.N, ss.Hq)), 4 * token_bytes(small));
  const gdn2::LaunchPlan small_plan = gdn2::plan_launch(small, ss, 132);
  EXPECT_TRUE(small_plan.on_device());
  EXPECT_EQ(int(small_plan.longer), int(Algorithm::kChunked));
}

// The uniform GVA-2 batches take the fused path with the hint since its estimates were refitted to
// the exact path by columns (docs/performance.md, "kAuto's fused estimates refitted"): on an H100,
// 8 x 2,048 tokens of 32 value heads took 525.8 us fused against 641.1 chunked, 4 x 4,096 510.0
// against 672.8 (graph); before the refit kAuto took the chunked path on both.
TEST(AutoChoice, GvaTwoBatchesTakeTheFusedPath) {
  for (int64_t n : {8, 4}) {
    gdn2::ProblemShape sh;
    sh.T = 16384, sh.N = n, sh.Hq = 16, sh.Hv = 32;
    ForwardArgs a;
    a.max_seqlen = sh.T / n;
    EXPECT_EQ(int(gdn2::choose_algorithm(a, sh, 132)), int(gdn2::Algorithm::kFused)) << n;
  }
}

// The fused path's CTAs each check every offset of cu_seqlens, so kAuto leaves it above 4096
// sequences even where its estimate would win (src/contract.cpp, kFusedMaxSequences).
TEST(AutoChoice, FusedOnlyUpToFourThousandSequences) {
  for (int64_t n : {int64_t(4096), int64_t(4097)}) {
    gdn2::ProblemShape sh;
    sh.N = n, sh.T = 32 * n, sh.Hq = 16, sh.Hv = 16;
    ForwardArgs a;
    a.max_seqlen = 32;
    const gdn2::Algorithm got = gdn2::choose_algorithm(a, sh, 132);
    if (n == 4096) EXPECT_EQ(int(got), int(gdn2::Algorithm::kFused));
    else EXPECT_NE(int(got), int(gdn2::Algorithm::kFused));
  }
}

// kAuto's choice on the device (src/contract.cpp, plan_launch): without the hint, where the picks at
// the two ends of the possible longest length [ceil(T / N), T - N + 1] differ, the host launches
// both paths and the kernels run the shorter one where every sequence is shorter than
// plan.length. That rule must agree with choose_algorithm given the true longest length as the
// hint: exactly at both ends, on both sides of plan.length where choose_algorithm picks one of the
// two paths there, and almost everywhere between (the estimates' kinks may put a few lengths on the
// other side of a step). Where choose_algorithm picks a third path in between, the device runs one
// of the two: those lengths are counted apart.
TEST(AutoChoice, DevicePlanFollowsTheEstimates) {
  using gdn2::Algorithm;
  int planned = 0, kept = 0, three_paths = 0;
  int64_t agree = 0, total = 0, third = 0;
  for (int64_t sms : {78, 114, 132})
    for (int64_t hq : {2, 4, 16})
      for (int64_t gva : {1, 2, 4})
        for (int64_t n : {2, 8, 20, 64, 256})
          for (int64_t per : {4, 16, 64, 256, 1024, 4096}) {
            gdn2::ProblemShape sh;
            sh.N = n, sh.T = n * per, sh.Hq = hq, sh.Hv = hq * gva;
            ForwardArgs a;
            const gdn2::LaunchPlan plan = gdn2::plan_launch(a, sh, sms);
            EXPECT_EQ(int(plan.longer), int(gdn2::choose_algorithm(a, sh, sms)));
            if (!plan.on_device()) {
              ++kept;
              continue;
            }
            ++planned;
            // The order the launches assume (launch.cu, kernel_params.h): the recurrent path only
            // ever first, the chunked path only ever second.
            EXPECT_NE(int(plan.longer), int(Algorithm::kRecurrent));
            EXPECT_NE(int(plan.shorter), int(Algorithm::kChunked));
            auto pick = [&](int64_t length) {
              ForwardArgs h;
              h.max_seqlen = length;
              return gdn2::choose_algorithm(h, sh, sms);
            };
            auto one_of_two = [&](Algorithm x) { return x == plan.shorter || x == plan.longer; };
            const int64_t lo = (sh.T + n - 1) / n, hi = sh.T - n + 1;
            ASSERT_GT(plan.length, lo);
            ASSERT_LE(plan.length, hi);
            const std::string where = "sms " + std::to_string(sms) + " Hq " + std::to_string(hq) + " Hv " +
                                      std::to_string(sh.Hv) + " N " + std::to_string(n) + " T " + std::to_string(sh.T);
            EXPECT_EQ(int(pick(lo)), int(plan.shorter)) << where;
            EXPECT_EQ(int(pick(hi)), int(plan.longer)) << where;
            if (one_of_two(pick(plan.length - 1))) EXPECT_EQ(int(pick(plan.length - 1)), int(plan.shorter)) << where;
            if (one_of_two(pick(plan.length))) EXPECT_EQ(int(pick(plan.length)), int(plan.longer)) << where;
            bool seen_third = false;
            for (int k = 0; k <= 200; ++k) {
              const int64_t length = lo + (hi - lo) * k / 200;
              if (!one_of_two(pick(length))) {
                ++third, seen_third = true;
                continue;
              }
              agree += pick(length) == (length < plan.length ? plan.shorter : plan.longer);
              ++total;
            }
            three_paths += seen_third;
          }
  std::printf("device plans: %d shapes planned on the device (%d with a third path between the two), %d decided on "
              "the host; rule = pick at %lld of %lld lengths (and %lld of the third path)\n",
              planned, three_paths, kept, (long long)agree, (long long)total, (long long)third);
  EXPECT_GT(planned, 100);
  EXPECT_GE(double(agree), 0.995 * double(total));
}

// The benchmark's batch rows without the hint (132 SMs): the device chooses between the fused path
// (every sequence shorter than plan.length) and the chunked path.
TEST(AutoChoice, DevicePlanOfTheBatchRows) {
  struct Row {
    const char* name;
    int64_t T, N, Hv;
  };
  for (const Row& r : {Row{"S3", 4096, 20, 16}, Row{"N64-MIXED-MHA", 16226, 64, 16}, Row{"B8x2K-MHA", 16384, 8, 16},
                       Row{"B4x4K-MHA", 16384, 4, 16}}) {
    gdn2::ProblemShape sh;
    sh.T = r.T, sh.N = r.N, sh.Hq = 16, sh.Hv = r.Hv;
    const gdn2::LaunchPlan plan = gdn2::plan_launch(ForwardArgs{}, sh, 132);
    EXPECT_EQ(int(plan.shorter), int(gdn2::Algorithm::kFused)) << r.name;
    EXPECT_EQ(int(plan.longer), int(gdn2::Algorithm::kChunked)) << r.name;
    ForwardArgs hinted;
    hinted.max_seqlen = 1;  // a hint or a forced algorithm: no choice on the device
    EXPECT_FALSE(gdn2::plan_launch(hinted, sh, 132).on_device()) << r.name;
  }
  gdn2::ProblemShape one;  // one sequence: its length is T
  one.T = 1024, one.N = 1, one.Hq = 16, one.Hv = 16;
  EXPECT_FALSE(gdn2::plan_launch(ForwardArgs{}, one, 132).on_device());
}

// Batches of many sequences without the hint: the device chooses between the fused path and the
// chunked one however many rounds of the SMs the chunked pass's CTAs take (they start and leave
// where the fused path runs). Measured on an H100 (docs/performance.md, "kAuto's choice on the
// device for many sequences"): 256 x 64 tokens of 16 heads 713 us chunked, 317 fused, 340 auto
// with the choice on the device; 1,024 x 64 2,765, 1,251 and 1,314 us.
TEST(AutoChoice, ManySequencesChooseOnTheDevice) {
  for (int64_t n : {256, 512, 1024}) {
    gdn2::ProblemShape sh;
    sh.N = n, sh.T = 64 * n, sh.Hq = 16, sh.Hv = 16;
    const gdn2::LaunchPlan plan = gdn2::plan_launch(ForwardArgs{}, sh, 132);
    ASSERT_TRUE(plan.on_device()) << n;
    EXPECT_EQ(int(plan.shorter), int(gdn2::Algorithm::kFused)) << n;
    EXPECT_EQ(int(plan.longer), int(gdn2::Algorithm::kChunked)) << n;
    EXPECT_GT(plan.length, 64) << n;  // these 64-token sequences take the fused path
  }
}

// The cases of tests/python/test_forward_gpu.py's DEVICE_CHOICE (and the sanitizer matrix's
// auto-device cases): on 132 SMs each is planned on the device between the two paths it names, and
// its longest sequence falls on the side of the choice's length that picks the expected path. So
// those GPU tests keep testing the choice (both paths launched) whatever the estimates become.
TEST(AutoChoice, DevicePlanOfTheGpuTestCases) {
  using gdn2::Algorithm;
  struct Case {
    std::vector<int64_t> lengths;
    int64_t hq, hv;
    Algorithm expected, other;
  };
  const std::vector<int64_t> s3 = {63, 129, 257, 31, 512, 65, 128, 17, 333, 91, 211, 7, 401, 255, 144, 73, 289, 377, 19, 694};
  std::vector<int64_t> s3_one_long(20, 7), one_3000(16, 16), matrix_one_long(40, 25);
  s3_one_long[0] = 3963, one_3000[0] = 3000, matrix_one_long[7] = 2025;
  const Case cases[] = {
      {s3, 16, 16, Algorithm::kFused, Algorithm::kChunked},
      {s3_one_long, 16, 16, Algorithm::kChunked, Algorithm::kFused},
      {one_3000, 16, 16, Algorithm::kChunked, Algorithm::kFused},
      {std::vector<int64_t>(40, 75), 2, 2, Algorithm::kFused, Algorithm::kChunked},
      {{100, 37, 100}, 4, 8, Algorithm::kFused, Algorithm::kChunked},
      {{2000, 16, 16, 16}, 16, 16, Algorithm::kChunked, Algorithm::kFused},
      {{14, 14, 14}, 4, 8, Algorithm::kRecurrent, Algorithm::kFused},
      {{40, 1, 1}, 4, 8, Algorithm::kFused, Algorithm::kRecurrent},
      {std::vector<int64_t>(8, 24), 4, 4, Algorithm::kRecurrent, Algorithm::kChunked},
      {{185, 1, 1, 1, 1, 1, 1, 1}, 4, 4, Algorithm::kChunked, Algorithm::kRecurrent},
      {matrix_one_long, 2, 2, Algorithm::kChunked, Algorithm::kFused},
  };
  for (const Case& c : cases) {
    gdn2::ProblemShape sh;
    sh.N = int64_t(c.lengths.size()), sh.T = 0, sh.Hq = c.hq, sh.Hv = c.hv;
    int64_t longest = 0;
    for (int64_t x : c.lengths) sh.T += x, longest = std::max(longest, x);
    const gdn2::LaunchPlan plan = gdn2::plan_launch(ForwardArgs{}, sh, 132);
    const std::string name = "T " + std::to_string(sh.T) + " N " + std::to_string(sh.N) + " Hv " + std::to_string(sh.Hv);
    ASSERT_TRUE(plan.on_device()) << name;
    const bool chosen_is_longer = longest >= plan.length;
    EXPECT_EQ(int(chosen_is_longer ? plan.longer : plan.shorter), int(c.expected)) << name;
    EXPECT_EQ(int(chosen_is_longer ? plan.shorter : plan.longer), int(c.other)) << name;
    ForwardArgs hinted;
    hinted.max_seqlen = longest;
    EXPECT_EQ(int(gdn2::choose_algorithm(hinted, sh, 132)), int(c.expected)) << name;
  }
}
