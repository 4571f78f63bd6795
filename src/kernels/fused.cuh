// The fused path: the chunked recurrence in 16-token blocks (docs/algorithm.md, "The fused path":
// the chunk algebra of "One chunk" on blocks of 16 tokens), key side and value side in one kernel,
// with no factor block in global memory and one launch. For sequences of tens of tokens, where
// the chunked path's first chunk (phase 1's item, then the pass) is a fixed latency of about
// 16 us and the recurrent path's token chain is too long (docs/design.md, "Three algorithms").
// Correct for any length and any finite g: a long sequence only takes longer.
//
// One CTA per (sequence, value head, slice of 64 kConsumers value channels), four warpgroups
// (fused_v128.cu: kConsumers = 2, one CTA per head, which forms each block's key side once for all
// 128 channels; fused_v64.cu: kConsumers = 1, the pair form: the head's two CTAs are a cluster,
// and each forms every other block's key side, and w*v for both CTAs' channels, and copies it into
// the other's shared memory (docs/design.md, "The pair form")):
//   - the producer forms each block's key-side factors from the raw q, k, b, g (TMA boxes, two
//     blocks ahead), one thread per key channel over the block's 16 tokens, where the decays are
//     running products in [0, 1]: Kb and Qg into the block's kq (the consumers' operand, swizzled),
//     k / r into a staging tile, Kend^T, D and w*v into the block's slot, and the vote on the range
//     rule (below); on a block that takes the exact path, its decay factors over the raw stage's g,
//     for the solver;
//   - two solvers, one per block parity, each form A and P (below) from kq and the staging, invert
//     I + A into T and request the raw inputs of the block after next. With one consumer a solver
//     is a warpgroup: its warps 0 and 1 form A's column halves and invert as soon as their half is
//     formed, while warps 2 and 3 form P and request. With two consumers the two solvers share a
//     warpgroup, two warps each: each warp forms both A and P over half the key channels, the two
//     swap partial sums so that each holds a column half, the pair releases the staging, then
//     each warp does its part of T;
//   - each consumer holds its S^T (64 x 128, fp32) in registers and runs the block's products as
//     wgmma with S^T (or the previous product's accumulator) as A and the factors as B:
//       R^T = (w v)^T - S^T Kb^T,  -O1^T = -S^T Qg^T        (one m64n32 product, 16 k-steps)
//       U^T = R^T T^T;   -O^T = -O1^T - U^T P^T;   S^T <- S^T diag(D) + U^T Kend
//     where, for the block's tokens i, j and key channel c (d: the per-token decay factors, r_i
//     their product over the block's tokens up to i):
//       Kb_i = b_i k_i r_i,  Qg_i = scale q_i r_i,  Kend_j = k_j prod_{j < t <= 15} d_t,  D = r_15,
//       A_ij = sum_c b_ic k_ic k_jc prod_{j < t <= i} d_tc (i > j),  P_ij: the same with scale q_i (i >= j).
// Two slots alternate between blocks (full/solved/empty mbarriers; in the pair forms four, two per
// CTA, each CTA's `full` (and in the GVA pair `solved`) of the other's slots counting the copies);
// staging tiles and raw stages alternate too (over a CTA's own blocks), and three kq buffers take
// turns (the pair form: four).
// The producer and the solvers form the next blocks while the consumers run block n: only the
// stores into a slot wait for the consumers to release it, so a solver's A -> T chain (about 2,500
// SM cycles) spans two blocks of the consumers.
//
// A and P: A = Kb Kinv^T and P = Qg Kinv^T with Kinv_j = k_j / r_j, on tensor cores (TF32),
// wherever every factor is within range (kMaxKinv, kMaxRow: no product or sum can overflow, and
// 1 / r_j is a normal float). A block where some channel's decays are too strong for that (a
// channel decaying by more than about 2^-90 over 16 tokens: 0.07-0.4% of the blocks of the
// benchmark's model-like inputs at scale, one or two channels each) takes, in the pair form and
// the persistent kernels (the 128-channel form and its GVA pair), the tensor-core path over the
// other channels with the failing channels' terms added in fp32 (find_failing_channels,
// add_failing_terms) where at most kMaxFailingChannels fail; otherwise, and in the one-item
// 128-channel kernels, the exact path: A and P summed over all channels from running products of
// d in fp32 (exact_ap).
//
// Index orders. Every accumulator column that later becomes an A operand's reduction index holds
// index k_position(n) (kernel_params.h) at column n, so that acc_to_a hands the next product its
// reduction index in plain order: the B operands keep their K dimension plain and store their
// rows (N) in that "slot order" (row n = index k_position(n)); the state's columns (key channels)
// are in slot order too, and so are w*v's and the output's tokens.
#pragma once

#include <algorithm>
#include <atomic>
#include <type_traits>

#include "contract.h"
#include "kernels/state_pass_common.cuh"
#include "kernels/wgmma.cuh"

namespace gdn2::kernels::fused {

#ifdef GDN2_PHASE1_TIMELINE
// The per-CTA timeline (kernel_params.h, FusedTimelineField), in each form's own translation unit.
static __device__ long long g_fused_timeline[kFusedTimelineCtas][kFusedTimelineFields];
// Row `row` (a CTA, or in the persistent forms an item: s Hv + h), field `field`.
#define GDN2_FUSED_MARK_ROW(row_at_, field_, value_)                                                 \
  do {                                                                                               \
    const unsigned row_ = unsigned(row_at_);                                                         \
    if (row_ < unsigned(kFusedTimelineCtas) && p.item_base == 0) g_fused_timeline[row_][field_] = (value_); \
  } while (0)
#define GDN2_FUSED_MARK(field, value) GDN2_FUSED_MARK_ROW(int(blockIdx.x), field, value)
// A mark of item `item_`: its CTA's row, or where `by_item_` (a constant: the persistent forms) the
// item's own.
#define GDN2_FUSED_ITEM_MARK(by_item_, item_, field_, value_) \
  GDN2_FUSED_MARK_ROW((by_item_) ? (item_).s * p.r.value.Hv + (item_).h : int(blockIdx.x), field_, value_)
// The form's timeline (kernel_params.h): read into `fields`, or reset where it is null.
static int fused_timeline_here(long long* fields) {
  if (fields != nullptr) return int(cudaMemcpyFromSymbol(fields, g_fused_timeline, sizeof(g_fused_timeline)));
  void* at = nullptr;
  cudaError_t e = cudaGetSymbolAddress(&at, g_fused_timeline);
  if (e == cudaSuccess) e = cudaMemset(at, 0, sizeof(g_fused_timeline));
  return int(e);
}
#else
#define GDN2_FUSED_MARK(field, value) \
  do {                                \
  } while (0)
#define GDN2_FUSED_ITEM_MARK(by_item_, item_, field_, value_) \
  do {                                                   \
  } while (0)
#endif

constexpr int kBlk = 16;                 // tokens per block
constexpr int kConsumerRows = 64;        // value channels per consumer warpgroup
constexpr int kSolvers = 2;              // solvers, one per block parity
constexpr int kThreads = 4 * kWarpgroup;
constexpr int kStageLd = kK + 4;         // row stride of the staging tiles (conflict-free columns and rows)
constexpr int kALd = 12;
constexpr int kProducerBarrier = 1;      // named barrier of the producer warpgroup
constexpr int kSolverBarrier = 2;        // solver w: 2 + 2 w
constexpr int kInverseBarrier = 3;       // its warps 0 and 1 in the inverse: 3 + 2 w
constexpr int kConsumerBarrier = 6;      // the consumer warpgroups (the persistent form's bad slots; the pair form's sm.state)
constexpr float kMaxKinv = 0x1p+90f;     // |k_j / r_j| at most this on the tensor-core path
constexpr float kMaxRow = 0x1p+30f;      // |Kb|, |Qg| at most this: every product below 2^120, sums below 2^127
// A block where at most this many key channels fail the range rule takes the tensor-core path over
// the others and adds the failing channels' terms in fp32 (add_failing_terms); with more, the
// exact path over all channels (exact_ap) is cheaper.
constexpr int kMaxFailingChannels = 8;
static_assert(kK == 128 && kWarpgroup == 128, "layout of this file");

// What depends on the number of consumers: the value channels per CTA, the warpgroups' roles and
// registers. One consumer: warpgroup 0 produces, 1 consumes, 2 and 3 solve (a warpgroup per
// solver). Two: warpgroup 0 produces, 1 solves (two warps per solver), 2 and 3 consume.
template <int kConsumers, int kPairCtas>
struct Roles {
  static_assert((kConsumers == 1 && kPairCtas == 2) || (kConsumers == 2 && (kPairCtas == 1 || kPairCtas == 2)),
                "the pair form (one consumer, two CTAs), the 128-channel form, or its GVA pair");
  static constexpr int kSliceV = kConsumerRows * kConsumers;  // value channels per CTA
  static constexpr int kSlices = kV / kSliceV;
  // The pair form (one consumer): the head's two CTAs are a cluster, and each forms every other
  // block's key side (and w*v for both slices) and copies it into the other's shared memory.
  static constexpr int kCtas = kPairCtas;  // CTAs that share a key head's key side
  // The GVA pair (two consumers, two CTAs): the two value heads of a key head (GVA groups of an even
  // number of value heads), a CTA each, each forming every other block's key side. w*v does not
  // travel with the block: the forming CTA's producer loads each CTA's own head's v and w by TMA
  // into that CTA's slot (Slot::wv's room, vw_of), and the consumers form their rows of w*v.
  static constexpr bool kGvaPair = kConsumers == 2 && kCtas == 2;
  static constexpr int kFormV = kConsumers == 1 ? kSliceV * kCtas : kSliceV;  // value channels of v and w per raw stage: 128
  static constexpr int kWvSlices = kConsumers == 1 ? kCtas : 1;              // Slot::wv's slices
  // Slot::wv's rows: 4 floats past the slice (its stores and reads without bank conflicts); in the
  // GVA pair 8, so that the room holds v and w in rows of kVwLd channels (vw_of).
  static constexpr int kWvLd = kSliceV + (kGvaPair ? 8 : 4);
  static constexpr int kSlots = 2 * kCtas;               // slots of factors, two per forming CTA
  static constexpr int kSlotsLog2 = kCtas;                // log2(kSlots)
  static constexpr int kKqRing = kCtas == 2 ? 4 : 3;     // kq buffers (Smem)
  static constexpr int kSolverWarps = 4 / kConsumers;
  static constexpr int kSolverThreads = 32 * kSolverWarps;
  static constexpr int kFirstConsumer = kConsumers == 1 ? 1 : 2;                    // its warpgroup
  static constexpr int kFirstSolverThread = (kConsumers == 1 ? 2 : 1) * kWarpgroup;  // solver 0's
  // Two consumers start a block's first product on the producer's part of the slot (`full`) and
  // wait for the solver's (`solved`) before T; one consumer waits for both on `full` (Smem). In
  // the GVA pair the other CTA's blocks arrive the same way: the producer's copy on `full`, the
  // solver's (T and P) on `solved`.
  static constexpr bool kSplitSlot = kConsumers == 2;
  // The pair form's slot traffic with fewer shared-memory wavefronts: D by the consumers' lane
  // quads (d_index), read as float4s, and the producer's w*v stores without bank conflicts. The
  // forms of two consumers keep D in slot order and the stores in one order: the same change there
  // measured 0.7-1.1% slower (docs/performance.md, "The pair form's wavefronts and waits").
  static constexpr bool kQuadD = kConsumers == 1;
  // The pair form's roles wait with a suspend-time hint (role_wait): measured faster there, and
  // no faster in the 128-channel forms or the GVA pair (docs/performance.md, "The pair form's
  // wavefronts and waits").
  static constexpr bool kSuspendingWaits = kConsumers == 1;
  // The pair form starts behind the previous grid in the stream (launch_ex's programmatic
  // attribute, enter_after_prior_grid): its CTAs set up their barriers beside the previous grid's
  // tail and let the next grid launch at once, where the other forms launch plainly (but behind
  // the shorter path under kAuto's choice on the device) and set up after their checks. Measured
  // (docs/performance.md, "The pair form behind the previous grid"): S1 -4%; the same start in the
  // 128-channel forms changed their SASS throughout and made the batches 0.7-1.3% slower.
  static constexpr bool kEarlyStart = kConsumers == 1;
  // Registers per thread after setmaxnreg: 128 x (96 + 224 + 2 x 96) or 128 x (96 + 96 + 2 x 160)
  // = 65536; __launch_bounds__ gives every thread 128 at the start.
  static constexpr int kProducerRegs = 96, kSolverRegs = 96, kConsumerRegs = kConsumers == 1 ? 224 : 160;
  static_assert(kWarpgroup * (kProducerRegs + kConsumers * kConsumerRegs + (4 - 1 - kConsumers) * kSolverRegs) <= 65536 &&
                    65536 / kThreads >= kProducerRegs && 65536 / kThreads >= kSolverRegs,
                "the register file");
};

// A role's wait on one of the CTA's barriers (produce, solve, consume): mbarrier_wait, or in the
// pair form mbarrier_wait_suspending (Roles::kSuspendingWaits).
template <class R>
__device__ __forceinline__ void role_wait(uint64_t* bar, uint32_t parity) {
  if constexpr (R::kSuspendingWaits) mbarrier_wait_suspending(bar, parity);
  else mbarrier_wait(bar, parity);
}

// D, the block's decay over each key channel: in slot order, or in the pair form (Roles::kQuadD)
// in the order of the consumers' lane quads. A consumer thread scales its state columns
// 8 j + 2 tq + e (slot positions; j < 16, tq < 4, e < 2); by quads, position 16 a + 8 b + 2 tq + e
// lies at 16 a + 4 tq + 2 b + e, so that the thread's D for j = 2 a and 2 a + 1 is one float4
// (consume). Both the producer's stores (a permutation within each 16 positions) and those float4
// reads (four addresses 16 bytes apart) are free of bank conflicts.
template <bool kQuads>
__host__ __device__ constexpr int d_index(int position) {
  return kQuads ? (position & ~15) | ((position & 6) << 1) | ((position & 8) >> 2) | (position & 1) : position;
}

// One block's factors other than [Kb; Qg] (Smem::kq), consumed by the products as B operands
// (K-major, kmajor_offset; rows in slot order), D (d_index) and w*v ([token slot][value channel]).
template <int kConsumers, int kCtas>
struct Slot {
  float t[kBlk * kBlk];     // T: rows token slots i, K = token j
  float p[kBlk * kBlk];     // P, as T
  float kend[kK * kBlk];    // Kend^T: rows key-channel slots, K = token
  float d[kK];              // D at d_index<Roles::kQuadD>(slot position)
  // w*v of each CTA's slice ([cta][token slot][value channel]): in the pair form the forming CTA
  // copies the other's part with t .. d (kPeerBytes).
  float wv[Roles<kConsumers, kCtas>::kWvSlices][kBlk][Roles<kConsumers, kCtas>::kWvLd];
};
// The GVA pair: the slot's v and w of the CTA's own head (bf16 [token][value channel], v then w),
// in the room of Slot::wv, each token's row kVwLd channels long: the TMA box reads the head's 128
// channels and the next 8 (the next head's, or zeros past the last), so that rows start 272 bytes
// (4 banks) apart and the consumers' ldmatrix of 8 tokens' rows of 16 bytes meets 32 banks.
constexpr int kVwLd = kV + 8;
constexpr uint32_t kVwBytes = 2 * kBlk * kVwLd * sizeof(uint16_t);
template <int kConsumers, int kCtas>
__device__ __forceinline__ uint16_t* vw_of(Slot<kConsumers, kCtas>& slot) {
  static_assert(sizeof(slot.wv) >= kVwBytes, "v and w fit the slot's w*v");
  return reinterpret_cast<uint16_t*>(&slot.wv[0][0][0]);
}
// A (fp32), the inverse's input, a solver's own: its column halves apart (columns 8 h .. + 7 in
// a[h]), each read and written by one warp only (on the exact path the warps that form A write
// both halves, ordered by the solver's barrier), rows of 48 bytes so that no read (the compiler
// widens some to 16 bytes) reaches a word of the other half.
using ATile = float[2][kBlk][kALd];
// With two consumers (two warps per solver), [solver][writing warp][A or P][lane]: warp h's partial
// sums of column half 1 - h over key channels 64 h .. + 63, in the mma fragment's order, so that
// each lane reads back what its own fragment holds (tensor_ap).
struct alignas(128) ApPartials {  // each 512-byte row of lanes in four wavefronts
  float4 v[kSolvers][2][2][32];
};
struct NoApPartials {};
// One block's raw inputs as the TMA boxes land ([token][channel]; rows past T arrive as zeros,
// rows past the sequence's end are masked where they are read). On a block that takes the exact
// path the producer replaces g by the decay factors d = exp2(decay_log2(g)), 1 past the end.
template <int kConsumers, int kCtas>
struct RawStage {
  uint16_t q[kBlk][kK], k[kBlk][kK], b[kBlk][kK];
  float g[kBlk][kK];
  uint16_t v[kBlk][Roles<kConsumers, kCtas>::kFormV], w[kBlk][Roles<kConsumers, kCtas>::kFormV];
};
using StageTile = float[kBlk][kStageLd];
// [Kb; Qg] of one block, the consumers' first B operand and the solver's operand of A and P: rows
// 0..15 Kb, 16..31 Qg (token slots), K = key channel, in the swizzled layout (kernel_params.h,
// sw128), which the producer stores a token row at a time without bank conflicts.
constexpr int kKqRows = 2 * kBlk;
// The producer's stores rely on this form of sw128::offset (produce).
constexpr bool kq_rows_by_xor() {
  for (int row = 0; row < kKqRows; ++row)
    for (int c = 0; c < kK; ++c)
      if (sw128::offset(row, c, kKqRows) != ((sw128::offset(0, c, kKqRows) ^ ((row & 7) << 2)) + 32 * row))
        return false;
  return true;
}
static_assert(kq_rows_by_xor(), "a kq row is row 0's words with bits 2-4 flipped, plus 32 words a row");
template <int kConsumers, int kCtas>
struct alignas(1024) Smem {
  using R = Roles<kConsumers, kCtas>;
  // Block n's [Kb; Qg] in kq[n % kKqRing], written by the producer as it forms the block. Without
  // a barrier of its own: in the 128-channel form (three deep) the producer has waited, before
  // forming block n, for the consumers' release of block n - 3, the last reader of kq[n % 3] (for
  // block n - 1's slot); in the pair form (four deep, as the slots) it waits for block n - 4's
  // release before it stores kq.
  float kq[R::kKqRing][kKqRows * kK];
  Slot<kConsumers, kCtas> slot[R::kSlots];
  // The raw stages, staging tiles and votes of the CTA's own blocks m (block n = rank + kCtas m),
  // by m % 2.
  RawStage<kConsumers, kCtas> raw[2];
  // The producer's [token][channel] tile of own block m in stage[m % 2]: k / r (rounded to TF32),
  // from which, with kq, the solver forms A and P.
  StageTile stage[2];
  ATile a[kSolvers];
  float t22[kSolvers][2][kBlk / 2][9];  // the inverse's lower diagonal block, shared by a solver's warps 0 and 1
  uint32_t fast[2];  // the producer's vote per stage: every channel within the range rule (1) or not (0)
  // Per slot: `full` (the producer's part: kq, w*v, D, Kend^T; with one consumer the solver's too),
  // `solved` (the solver's part, T and P, with two consumers: Roles::kSplitSlot), `empty`.
  // In the pair form `full` of the other CTA's slots counts the consumer's one arrival and the
  // bytes copied in, and `empty` of this CTA's slots both consumers' warps.
  uint64_t full[R::kSlots], solved[R::kSlots], empty[R::kSlots], raw_full[2], formed[2], stage_empty[2];
  // The pair forms: where the consumers read the item's initial state and store its final one,
  // written by thread 0 before the roles start (consume says why only there).
  StateOffsets state;
  // Two consumers: each solver warp's partial sums of A and P over its half of the key channels,
  // for the other warp's column half (tensor_ap). Last, so that the pair form's layout is as it
  // was without it.
  std::conditional_t<kConsumers == 2, ApPartials, NoApPartials> ap_part;
  // On blocks whose vote failed, the channels that fail the rule, a bit per channel (word c / 32):
  // per solver in the 128-channel forms (find_failing_channels), per raw stage in the pair form
  // (written by the producer, read by the solver before its arrival on stage_empty). Last, as
  // ap_part.
  uint32_t failing[kSolvers][kK / 32];
};
// The bytes of a block that the forming CTA copies into the other's shared memory (pair forms):
// kq, the slot's t .. d and, in the pair form, the other CTA's w*v.
template <class SlotT, bool kWithWv>
constexpr uint32_t peer_bytes() {
  return uint32_t(kKqRows * kK * sizeof(float) + offsetof(SlotT, wv) + (kWithWv ? sizeof(SlotT::wv[0]) : 0));
}
template <int kConsumers, int kCtas>
constexpr uint32_t kPeerBytes = peer_bytes<Slot<kConsumers, kCtas>, !Roles<kConsumers, kCtas>::kGvaPair>() +
                                (Roles<kConsumers, kCtas>::kGvaPair ? kVwBytes : 0);
// Of those, the solver's part (the slot's t and p), which counts on `solved` where the slot is split
// (Roles::kSplitSlot), and the rest, on `full`.
template <class SlotT, bool kSplit>
constexpr uint32_t peer_solver_bytes() {
  return kSplit ? uint32_t(offsetof(SlotT, kend)) : 0;
}
template <int kConsumers, int kCtas>
constexpr uint32_t kPeerSolverBytes = peer_solver_bytes<Slot<kConsumers, kCtas>, Roles<kConsumers, kCtas>::kSplitSlot>();
template <int kConsumers, int kCtas>
constexpr uint32_t kPeerFullBytes = kPeerBytes<kConsumers, kCtas> - kPeerSolverBytes<kConsumers, kCtas>;
// One thread: `bytes` at `src` (this CTA) into the same offset of CTA `peer`, counted on `bar` there.
__device__ __forceinline__ void send_to_peer(const void* src, uint32_t bytes, const uint64_t* bar, int peer) {
  bulk_copy_to_peer(peer_address(src, peer), src, bytes, peer_address(bar, peer));
}

// The parameters with the TMA descriptors of the raw key-side inputs ([T][Hq K], boxes of 16
// tokens x 128 channels) and of v and w in value.v_map / value.w_map ([T][Hv V], boxes of 16
// tokens x the CTA's value channels).
struct FusedParams {
  RecurrentParams r;
  TensorMap q_map, k_map, b_map, g_map;
  int64_t item_base = 0;  // CTA b takes item item_base + b (a launch covers at most kMaxGrid items)
  int* claims = nullptr;  // the persistent form's counter of claimed items (Schedule)
  int claim_step = 1;     // 0 within one round, where `claims` is g_no_claims (launch_fused)
};

// Longest sequence first: where items take more than one round of the SMs, a long sequence late in
// the list would start late and end the kernel alone. So the persistent forms take the items in
// the order of their sequences' rank by block count (more blocks first, ties by index: a
// permutation of the sequences whatever cu_seqlens holds, its offsets clamped as everywhere), on up
// to kMaxOrderedSequences sequences (one thread ranks each; past that in index order). The
// one-item kernels, which run only past the persistent forms' bounds of sequences
// (kernel_params.h), take them in index order.
constexpr int kMaxOrderedSequences = 256;
static_assert(kMaxOrderedSequences + 4 <= int(sizeof(StageTile) / sizeof(int)), "scratch in a staging tile");

// Ranks the sequences by block count (more blocks first, ties by index: a permutation of the
// sequences whatever cu_seqlens holds, its offsets clamped as everywhere) and calls on_rank(t,
// rank) in the thread t < N of each sequence. Two CTA barriers; `scratch`: 4 + N (to a multiple of
// 4) ints of shared memory that nothing else uses until a barrier after this: the block counts from
// [4], padded to a multiple of 4 with -1 (which ranks below any count), so that the rank loop reads
// whole int4s and nothing past them.
template <int kThreads, class OnRank>
__device__ __forceinline__ void rank_sequences(const Sequences& seq, int* scratch, OnRank on_rank) {
  static_assert(kThreads >= kMaxOrderedSequences, "one thread per sequence");
  int* const blocks = scratch + 4;
  const int t = threadIdx.x, padded = (seq.N + 3) & ~3;
  if (t < padded) {
    const SeqBounds sb = seq_bounds(seq, t < seq.N ? t : 0);
    blocks[t] = t < seq.N ? int((sb.eos - sb.bos + kBlk - 1) / kBlk) : -1;
  }
  __syncthreads();
  if (t < seq.N) {
    const int mine = blocks[t];
    int ahead = 0;  // sequences with more blocks, or as many and a smaller index
    for (int u = 0; u < padded; u += 4) {
      const int4 x = *reinterpret_cast<const int4*>(&blocks[u]);
      ahead += (x.x > mine || (x.x == mine && u < t)) + (x.y > mine || (x.y == mine && u + 1 < t)) +
               (x.z > mine || (x.z == mine && u + 2 < t)) + (x.w > mine || (x.w == mine && u + 3 < t));
    }
    on_rank(t, ahead);
  }
  __syncthreads();
}

__device__ __forceinline__ bool producer_sync_and(bool x) {
  int r;
  asm volatile(
      "{\n.reg .pred p, q;\nsetp.ne.b32 p, %1, 0;\n"
      "bar.red.and.pred q, %2, %3, p;\nselp.b32 %0, 1, 0, q;\n}\n"
      : "=r"(r)
      : "r"(int(x)), "n"(kProducerBarrier), "n"(kWarpgroup)
      : "memory");
  return r != 0;
}

// 2^x by the hardware's approximation (ex2.approx.ftz, one MUFU instruction, no branch): x <= 0
// here, -inf gives 0 and a result below 2^-126 flushes to 0 (a decay that strong is a wipe).
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float bf(uint16_t x) { return __uint_as_float(uint32_t(x) << 16); }

// The item's sequence in blocks: its first token (token indices fit in int32: kMaxTokens), its
// block count and the length of its last block.
struct Blocks {
  int y0, count, last_len;
  __device__ __forceinline__ int len(int n) const { return n == count - 1 ? last_len : kBlk; }
};
__device__ __forceinline__ Blocks item_blocks(const SliceItem& it) {
  const int64_t tokens = it.sb.eos - it.sb.bos;
  const int count = int((tokens + kBlk - 1) / kBlk);
  return Blocks{int(it.sb.bos), count, int(tokens - int64_t(count - 1) * kBlk)};
}

// One thread: the TMA copies of block n into `r`, completing on `bar`.
template <int kConsumers, int kCtas>
__device__ __forceinline__ void issue_raw(const FusedParams& p, const SliceItem& it, const Blocks& bl, int n,
                                          RawStage<kConsumers, kCtas>& r, uint64_t* bar) {
  // This thread's generic reads of the stage before the copies' writes; other threads' reads are
  // ordered by a barrier, and the producer's writes of d (exact blocks) by its own fence and `formed`.
  fence_proxy_async();
  // The GVA pair reads no v or w here (its consumers read their own head's: consume).
  constexpr bool kVw = !Roles<kConsumers, kCtas>::kGvaPair;
  mbarrier_expect_bytes(bar, uint32_t(sizeof(RawStage<kConsumers, kCtas>) - (kVw ? 0 : 2 * sizeof(RawStage<kConsumers, kCtas>::v))));
  const int y = bl.y0 + n * kBlk;
  tma_load_2d(r.q, &p.q_map, it.hk * kK, y, bar);
  tma_load_2d(r.k, &p.k_map, it.hk * kK, y, bar);
  tma_load_2d(r.b, &p.b_map, it.hk * kK, y, bar);
  tma_load_2d(r.g, &p.g_map, it.hk * kK, y, bar);
  // v and w of all the head's channels (kFormV = kV in both forms: the pair's forming CTA forms w*v
  // for both slices).
  static_assert(Roles<kConsumers, kCtas>::kFormV == kV, "v and w boxes of a whole head");
  // it.v0 is 0 in the 128-channel form too: read there as before, so that its code stays main's.
  const int v0 = Roles<kConsumers, kCtas>::kCtas == 2 ? 0 : it.v0;
  if constexpr (kVw) {
    tma_load_2d(r.v, &p.r.value.v_map, it.h * kV + v0, y, bar);
    tma_load_2d(r.w, &p.r.value.w_map, it.h * kV + v0, y, bar);
  }
}

// selp: a choice between two registers that stays one (a ternary on array elements became an
// indexed load from local memory).
__device__ __forceinline__ float pick(bool p, float x, float y) {
  float r;
  asm("{\n.reg .pred q;\nsetp.ne.b32 q, %3, 0;\nselp.f32 %0, %1, %2, q;\n}" : "=f"(r) : "f"(x), "f"(y), "r"(int(p)));
  return r;
}

// A step of the exact path's reduce-scatter over 2 kHalf values: lanes with `upper` keep the sums
// of x[kHalf ..], the others those of x[0 .. kHalf), each adding its partner's (lane ^ o), into
// x[0 .. kHalf).
template <int kHalf>
__device__ __forceinline__ void keep_rows(float (&x)[16], bool upper, int o) {
#pragma unroll
  for (int i = 0; i < kHalf; ++i)
    x[i] = pick(upper, x[i + kHalf], x[i]) + __shfl_xor_sync(0xffffffffu, pick(upper, x[i], x[i + kHalf]), o);
}

// The exact path's sums for one matrix over a lane's channel quads (exact_ap): A (kP false, the
// rows x_i = b_i k_i) or P (kP, x_i = q_i), s[i] += x_i . e_i down the rows i = 0 .. 15, where
// e_i = k_j prod_{j < t <= i} d_t carries the lane's column j from the decay factors d that the
// producer wrote over the stage's g. Every row is read whole (past the sequence's end: other
// tokens, or TMA's zeros past T; the caller masks them at the store), and rows above the diagonal
// are summed too, with e_i = k_j there.
template <bool kP, int kParts, int kConsumers, int kCtas>
__device__ __forceinline__ void exact_sums(const RawStage<kConsumers, kCtas>& raw, int len, int j, int part, float (&s)[kBlk]) {
  auto quad = [](const uint16_t (&x)[kBlk][kK], int t, int c) {
    const uint2 u = *reinterpret_cast<const uint2*>(&x[t][c]);
    return make_float4(__uint_as_float(u.x << 16), __uint_as_float(u.x & 0xffff0000u),
                       __uint_as_float(u.y << 16), __uint_as_float(u.y & 0xffff0000u));
  };
#pragma unroll 1
  for (int m = 0; m < kK / 4 / kParts; ++m) {
    const int c = 4 * (part + kParts * m);
    float4 e = j < len ? quad(raw.k, j, c) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int i = 0; i < kBlk; ++i) {
      if (i > 0) {
        const float4 d = *reinterpret_cast<const float4*>(&raw.g[i][c]);
        if (i > j) e.x *= d.x, e.y *= d.y, e.z *= d.z, e.w *= d.w;
      }
      float4 x;
      if constexpr (kP) {
        x = quad(raw.q, i, c);
      } else {
        const float4 k = quad(raw.k, i, c), b = quad(raw.b, i, c);
        x = make_float4(b.x * k.x, b.y * k.y, b.z * k.z, b.w * k.w);
      }
      s[i] = fmaf(x.w, e.w, fmaf(x.z, e.z, fmaf(x.y, e.y, fmaf(x.x, e.x, s[i]))));
    }
  }
}

// The exact path for A and P, from the raw stage, on a solver's W = kSolverWarps warps, with no
// reduction inside a column's chain: the first W / 2 warps form A, the others P. A warp takes
// kCols = 32 / W columns, a lane one column and one of kParts = W parts of the channels (lane l:
// column l % kCols of the warp's, part l / kCols: the channel quads part + kParts m, so that a
// warp's loads of a row touch adjacent quads), and sums 16 rows over its channels (exact_sums):
// one multiply per channel and row for the decay, one fused multiply-add. The parts of a column
// are then added by a reduce-scatter over the lane bits above the column (each step keeps half of
// the rows), and each lane stores 16 / kParts rows of its column; rows above the diagonal (and on
// it, for A) and past the sequence's end are stored as zeros. Every sum is the same tree over the
// parts in every block: deterministic.
template <int kConsumers, int kCtas>
__device__ void exact_ap(const RawStage<kConsumers, kCtas>& raw, int len, float scale, ATile& a, Slot<kConsumers, kCtas>& slot,
                         int warp, int lane_in) {
  // The lane's index through a volatile copy, so that nothing derived from it (channels, column,
  // the reduce-scatter's selects) is hoisted out of the solver's block loop: live across
  // tensor_ap, where the solver's 96 registers are nearly all in use, such values spilled.
  int lane;
  asm volatile("mov.b32 %0, %1;" : "=r"(lane) : "r"(lane_in));
  constexpr int kW = Roles<kConsumers, kCtas>::kSolverWarps, kCols = 32 / kW, kParts = kW;
  const bool is_p = warp >= kW / 2;  // warp-uniform
  const int j = kCols * (warp % (kW / 2)) + lane % kCols, part = lane / kCols;
  float s[kBlk];
#pragma unroll
  for (int i = 0; i < kBlk; ++i) s[i] = 0.f;
  if (is_p) exact_sums<true, kParts>(raw, len, j, part, s);
  else exact_sums<false, kParts>(raw, len, j, part, s);
  int row0 = 0;
  if constexpr (kParts == 4) {
    row0 = (lane & 8) != 0 ? kBlk / 2 : 0;
    keep_rows<kBlk / 2>(s, (lane & 8) != 0, 8);
  }
  row0 += (lane & 16) != 0 ? kBlk / kParts : 0;
  keep_rows<kBlk / kParts>(s, (lane & 16) != 0, 16);
#pragma unroll
  for (int r = 0; r < kBlk / kParts; ++r) {
    const int i = row0 + r;
    if (!is_p) a[j / 8][i][j % 8] = j < i && i < len ? s[r] : 0.f;
    else slot.p[kmajor_offset(k_at_position(i), j, kBlk)] = round_tf32(j <= i && i < len ? scale * s[r] : 0.f);
  }
}

// Whether a block whose vote failed takes the tensor-core path with the failing channels' terms
// added in fp32 (at most kMaxFailingChannels of them fail the rule), else the exact path.
__device__ __forceinline__ bool few_failing(const uint32_t (&failing)[kK / 32]) {
  int n = 0;
#pragma unroll
  for (int w = 0; w < kK / 32; ++w) n += __popc(failing[w]);
  return n <= kMaxFailingChannels;
}

// On a block whose vote failed, the solver finds the channels that fail the range rule again, from
// the raw stage (the producer's d over g) with the producer's arithmetic, so the same channels: a
// bit per channel into `failing` (thread `thread` of kThreads takes channels thread + kThreads u, a
// warp's 32 one word). A failing channel's k / r in the staging tile (infinities, or values past
// the rule's bounds) becomes zeros, so that where few channels fail (few_failing) the tensor cores
// sum A and P over the others, and add_failing_terms adds the failing channels' terms in fp32;
// with more, the exact path (exact_ap) forms them over all channels.
template <int kThreads, int kConsumers, int kCtas>
__device__ __forceinline__ void find_failing_channels(const RawStage<kConsumers, kCtas>& raw, int len, float scale,
                                                      StageTile& stage, uint32_t (&failing)[kK / 32], int thread_in) {
  static_assert(kK % kThreads == 0 && kThreads % 32 == 0, "whole warps per word");
  int thread;  // through a volatile copy, as the lane in exact_ap
  asm volatile("mov.b32 %0, %1;" : "=r"(thread) : "r"(thread_in));
#pragma unroll 1
  for (int c = thread; c < kK; c += kThreads) {
    float sum_ki = 0.f, sum_row = 0.f, r = 1.f;
#pragma unroll
    for (int t = 0; t < kBlk; ++t) {
      const bool in = t < len;
      const float kk = in ? bf(raw.k[t][c]) : 0.f, bb = in ? bf(raw.b[t][c]) : 0.f, qq = in ? bf(raw.q[t][c]) : 0.f;
      r *= raw.g[t][c];
      float inv;
      asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(inv) : "f"(r));
      sum_ki += fabsf(kk * inv);
      sum_row += fabsf(bb * kk * r) + fabsf(scale * qq * r);
    }
    const bool ok = sum_ki <= kMaxKinv && sum_row <= kMaxRow;
    const uint32_t word = __ballot_sync(0xffffffffu, !ok);
    if (c % 32 == 0) failing[c / 32] = word;
    if (!ok) {
#pragma unroll
      for (int t = 0; t < kBlk; ++t) stage[t][c] = 0.f;
    }
  }
}

// After tensor_ap, the failing channels' terms added to the entries the warp stored (its column
// half of A, of P, or with two consumers both: kBoth), in shared memory: for each failing channel
// c, A_ij += b_ic k_ic e_ijc (j < i) and P_ij += scale q_ic e_ijc (j <= i), with
// e_ij = k_jc prod_{j < t <= i} d_tc, the running product of exact_sums in fp32 from the decay
// factors d that the producer wrote over the stage's g. Lane l takes column 8 half + l % 8 and rows
// l / 8 + 4 u (u < 4); rows past the sequence's end take no term (they stay zeros). P was stored
// rounded to TF32 and is rounded again.
template <bool kBoth, int kConsumers, int kCtas>
__device__ __forceinline__ void add_failing_terms(const RawStage<kConsumers, kCtas>& raw, const uint32_t (&failing)[kK / 32],
                                                  int len, float scale, int half, bool is_p, ATile& a, float* p, int lane_in) {
  // The lane through a volatile copy, as in exact_ap: nothing derived from it hoisted out of the
  // solver's block loop.
  int lane;
  asm volatile("mov.b32 %0, %1;" : "=r"(lane) : "r"(lane_in));
  const int j = 8 * half + (lane & 7), r4 = lane >> 3;
  float sa[4] = {}, sp[4] = {};
#pragma unroll 1
  for (int w = 0; w < kK / 32; ++w) {
#pragma unroll 1
    for (uint32_t m = failing[w]; m != 0; m &= m - 1) {
      const int c = 32 * w + __ffs(m) - 1;
      // e down the rows from row j, kept at the lane's rows r4 + 4 u (at[u]).
      float e = j < len ? bf(raw.k[j][c]) : 0.f, at[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) at[u] = e;
#pragma unroll
      for (int t = 1; t < kBlk; ++t) {
        e = pick(t > j, e * raw.g[t][c], e);
        at[t / 4] = pick((t & 3) == r4, e, at[t / 4]);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int i = r4 + 4 * u;
        if (i >= len) break;
        if (kBoth || !is_p) sa[u] = fmaf(bf(raw.b[i][c]) * bf(raw.k[i][c]), at[u], sa[u]);
        if (kBoth || is_p) sp[u] = fmaf(scale * bf(raw.q[i][c]), at[u], sp[u]);
      }
    }
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int i = r4 + 4 * u;
    if ((kBoth || !is_p) && j < i && i < len) a[half][i][j % 8] += sa[u];
    if ((kBoth || is_p) && j <= i && i < len) {
      float& x = p[kmajor_offset(k_at_position(i), j, kBlk)];
      x = round_tf32(x + sp[u]);
    }
  }
}

// This lane's row addresses for ldmatrix_x4 of Kb's k-steps in kq (sw128): the four 8 x 8 b16
// matrices are tokens 0-7 / 8-15 x the k-step's two channel quads, lane l giving token
// (l & 7) + 8 ((l >> 3) & 1) of quad l >> 4; each matrix's 8 rows are 8 token slots of one row group,
// which the swizzle puts on 8 distinct bank quads. The swizzle repeats every four k-steps (a
// 32-channel block), so k-step s's row is at[s % 4] + (s / 4) kBlockFloats, and Qg's kQgFloats
// further: four registers and immediate offsets, no address arithmetic per k-step.
struct KqRows {
  static constexpr int kBlockFloats = kKqRows * 32, kQgFloats = kBlk * 32;
  const float* at[4];
  __device__ __forceinline__ const float* kb(int kstep) const { return at[kstep & 3] + (kstep >> 2) * kBlockFloats; }
  __device__ __forceinline__ const float* qg(int kstep) const { return kb(kstep) + kQgFloats; }
};
__device__ __forceinline__ KqRows kq_rows(const float* kq, int lane) {
  const int row = k_at_position((lane & 7) + 8 * ((lane >> 3) & 1));
  KqRows r;
#pragma unroll
  for (int s = 0; s < 4; ++s) r.at[s] = kq + sw128::offset(row, 8 * s + 4 * (lane >> 4), kKqRows);
  return r;
}
static_assert(sw128::offset(kBlk + 5, 32 + 12, kKqRows) ==
                  sw128::offset(5, 12, kKqRows) + KqRows::kBlockFloats + KqRows::kQgFloats,
              "kq's 32-channel blocks and Qg's rows are plain offsets");

// The tensor-core path for A and P (kq: Kb, Qg; stage: k / r; all TF32 already), masked to the
// (strict) lower triangle; the warps that store P call wait_slot() first. ldmatrix on fp32 rows
// (each 8 x 8 b16 matrix is 8 rows x 4 fp32): Kb's and Qg's as kq_rows; k / r's are rows 8 t .. + 7
// (column half t) x the four column quads of k-steps s and s + 1. One consumer: warp w forms
// columns 8 (w % 2) .. + 7 of A (w < 2) or of P. Two: the solver's two warps split the key
// channels, warp h forms both column halves of A and P over channels 64 h .. + 63 (k-steps
// 8 h .. + 7), so that each warp reads half of kq and of the staging tile (24 ldmatrix instead of
// the 40 of a column half over all channels, the same 32 mma); the warps swap their partial sums
// of the other's column half through `part` (one barrier of the two warps, `barrier`), and warp h
// keeps columns 8 h .. + 7 of both, which its part of the inverse reads, as before. The next
// block's writes of `part` come after the inverse's barrier of the same two warps, which each
// reaches only after its reads.
template <int kConsumers, int kCtas, class WaitSlot>
__device__ void tensor_ap(const float* kq, const StageTile& stage, ATile& a, Slot<kConsumers, kCtas>& slot, int warp, int lane,
                          float4 (*part)[2][32], int barrier, WaitSlot wait_slot) {
  const int g = lane >> 2, q = lane & 3;
  if constexpr (kConsumers == 1) {
    const int nt = warp & 1, mat = warp >> 1;
    const float* b_row = &stage[8 * nt + (lane & 7)][4 * (lane >> 3)];
    const KqRows rows = kq_rows(kq + KqRows::kQgFloats * mat, lane);
    float acc[4][4] = {};
#pragma unroll
    for (int s = 0; s < kK / 8; s += 2) {
      uint32_t a0[4], a1[4], b[4];
      ldmatrix_x4(a0, rows.kb(s));
      ldmatrix_x4(a1, rows.kb(s + 1));
      ldmatrix_x4(b, b_row + 8 * s);
      mma_tf32_frag(acc[s & 3], a0, b[0], b[1]);
      mma_tf32_frag(acc[(s + 1) & 3], a1, b[2], b[3]);
    }
    if (mat == 1) wait_slot();
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int i = g + 8 * (r >> 1), j = 8 * nt + 2 * q + (r & 1);
      const float v = (acc[0][r] + acc[1][r]) + (acc[2][r] + acc[3][r]);
      if (mat == 0) a[nt][i][j % 8] = j < i ? v : 0.f;
      else slot.p[kmajor_offset(k_at_position(i), j, kBlk)] = round_tf32(j <= i ? v : 0.f);
    }
  } else {
    constexpr int kSteps = kK / 8 / 2;  // k-steps per warp
    const int h = warp;
    // Channels 64 h .. + 63: two 32-channel blocks of kq further, 64 h columns of the staging tile;
    // the warp's own column half (k / r's rows 8 h .. + 7) and the other's.
    const float* own_row = &stage[8 * h + (lane & 7)][4 * (lane >> 3)] + 8 * kSteps * h;
    const float* other_row = &stage[8 * (h ^ 1) + (lane & 7)][4 * (lane >> 3)] + 8 * kSteps * h;
    const KqRows rows = kq_rows(kq + (kSteps / 4) * KqRows::kBlockFloats * h, lane);
    float acc[2][2][2][4] = {};  // [A or P][own column half, other][k-step % 2]
#pragma unroll
    for (int s = 0; s < kSteps; s += 2) {
      // Kb's fragments used before Qg's are loaded: 16 fragment registers live, not 24 (with 24
      // the 128-channel forms' solvers spilled 4-24 bytes).
      uint32_t b0[4], b1[4], a0[4], a1[4], p0[4], p1[4];
      ldmatrix_x4(b0, own_row + 8 * s);
      ldmatrix_x4(b1, other_row + 8 * s);
      ldmatrix_x4(a0, rows.kb(s));
      ldmatrix_x4(a1, rows.kb(s + 1));
      mma_tf32_frag(acc[0][0][0], a0, b0[0], b0[1]);
      mma_tf32_frag(acc[0][0][1], a1, b0[2], b0[3]);
      mma_tf32_frag(acc[0][1][0], a0, b1[0], b1[1]);
      mma_tf32_frag(acc[0][1][1], a1, b1[2], b1[3]);
      ldmatrix_x4(p0, rows.qg(s));
      ldmatrix_x4(p1, rows.qg(s + 1));
      mma_tf32_frag(acc[1][0][0], p0, b0[0], b0[1]);
      mma_tf32_frag(acc[1][0][1], p1, b0[2], b0[3]);
      mma_tf32_frag(acc[1][1][0], p0, b1[0], b1[1]);
      mma_tf32_frag(acc[1][1][1], p1, b1[2], b1[3]);
    }
    // This warp's partial sums of the other column half, to the other warp.
#pragma unroll
    for (int mat = 0; mat < 2; ++mat) {
      const float(&x)[2][4] = acc[mat][1];
      part[h][mat][lane] = make_float4(x[0][0] + x[1][0], x[0][1] + x[1][1], x[0][2] + x[1][2], x[0][3] + x[1][3]);
    }
    asm volatile("bar.sync %0, 64;\n" ::"r"(barrier) : "memory");
    float v[2][4];  // [A or P][r]: the sums over all channels (the two halves' sums added, in either order the same)
#pragma unroll
    for (int mat = 0; mat < 2; ++mat) {
      const float4 o = part[h ^ 1][mat][lane];
      const float(&x)[2][4] = acc[mat][0];
      v[mat][0] = (x[0][0] + x[1][0]) + o.x;
      v[mat][1] = (x[0][1] + x[1][1]) + o.y;
      v[mat][2] = (x[0][2] + x[1][2]) + o.z;
      v[mat][3] = (x[0][3] + x[1][3]) + o.w;
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int i = g + 8 * (r >> 1), j = 8 * h + 2 * q + (r & 1);
      a[h][i][j % 8] = j < i ? v[0][r] : 0.f;
    }
    wait_slot();
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int i = g + 8 * (r >> 1), j = 8 * h + 2 * q + (r & 1);
      slot.p[kmajor_offset(k_at_position(i), j, kBlk)] = round_tf32(j <= i ? v[1][r] : 0.f);
    }
  }
}

// T = (I + A)^{-1} on a solver's warps 0 and 1, in 8 x 8 blocks (lane j < 8 holds column j): warp 1
// inverts the lower diagonal block T22 by forward substitution and shares it (t22, two buffers
// that alternate over the solver's blocks, so that warp 1 never overwrites what warp 0 may still
// read); warp 0 the upper one T11, and x = A21 T11[:, j]; after the two warps' barrier (named
// barrier `barrier`), warp 0 forms T21 = -T22 x. Each warp calls wait_slot() before it stores
// into the slot.
template <int kConsumers, int kCtas, class WaitSlot>
__device__ void invert(const ATile& a, float (&t22)[kBlk / 2][9], Slot<kConsumers, kCtas>& slot, int warp, int lane,
                       int barrier, WaitSlot wait_slot) {
  constexpr int kH = kBlk / 2;
  const int j = lane & (kH - 1), base = warp == 1 ? kH : 0;
  const float* ad_row = &a[warp][base][0];  // the diagonal block, in the warp's own column half
  float ad[kH][kH], tc[kH];  // the diagonal block of A (read before any store below)
#pragma unroll
  for (int i = 0; i < kH; ++i)
#pragma unroll
    for (int m = 0; m < i; ++m) ad[i][m] = ad_row[i * kALd + m];
#pragma unroll
  for (int i = 0; i < kH; ++i) {
    float s0 = 0.f, s1 = 0.f;
#pragma unroll
    for (int m = 0; m < i; ++m) {
      if (m & 1) s1 = fmaf(ad[i][m], tc[m], s1);
      else s0 = fmaf(ad[i][m], tc[m], s0);
    }
    tc[i] = i == j ? 1.f : i < j ? 0.f : -(s0 + s1);
  }
  float x[kH];
  if (warp == 1) {
    wait_slot();
    if (lane < kH) {
#pragma unroll
      for (int i = 0; i < kH; ++i) {
        t22[i][j] = tc[i];
        slot.t[kmajor_offset(k_at_position(i), kH + j, kBlk)] = 0.f;
        slot.t[kmajor_offset(k_at_position(kH + i), kH + j, kBlk)] = round_tf32(tc[i]);
      }
    }
  } else {
    float a21[kH][kH];
#pragma unroll
    for (int i = 0; i < kH; ++i)
#pragma unroll
      for (int m = 0; m < kH; ++m) a21[i][m] = a[0][kH + i][m];
#pragma unroll
    for (int i = 0; i < kH; ++i) {  // A21 T11[:, j]
      float s0 = 0.f, s1 = 0.f;
#pragma unroll
      for (int m = 0; m < kH; m += 2) {
        s0 = fmaf(a21[i][m], tc[m], s0);
        s1 = fmaf(a21[i][m + 1], tc[m + 1], s1);
      }
      x[i] = s0 + s1;
    }
  }
  asm volatile("bar.sync %0, 64;\n" ::"r"(barrier) : "memory");
  if (warp == 0 && lane < kH) {
    float y[kH];
#pragma unroll
    for (int i = 0; i < kH; ++i) {  // T21[:, j] = -T22 x (T22's rows read before the stores)
      float s = 0.f;
#pragma unroll
      for (int m = 0; m <= i; ++m) s = fmaf(t22[i][m], x[m], s);
      y[i] = -s;
    }
    wait_slot();
#pragma unroll
    for (int i = 0; i < kH; ++i) {
      slot.t[kmajor_offset(k_at_position(i), j, kBlk)] = round_tf32(tc[i]);
      slot.t[kmajor_offset(k_at_position(kH + i), j, kBlk)] = round_tf32(y[i]);
    }
  }
}

template <int kConsumers, int kCtas>
__device__ __forceinline__ void solver_sync(int w) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(kSolverBarrier + 2 * w), "n"(Roles<kConsumers, kCtas>::kSolverThreads) : "memory");
}

// Solver w, per own block m with m % 2 = w (block n; in the 128-channel form m = n) once the
// producer has formed its part (formed): A and P, T and the request of own block m + 2's raw
// inputs; then the arrival on the block's `solved` barrier (`full` with one consumer:
// Roles::kSplitSlot), and in the pair form the copy of T and P into the other CTA. A is the
// solver's own tile and T is formed in registers, so only the stores into the slot wait for the
// consumers to release it (block n - kSlots): the two solvers' chains overlap the consumers' blocks.
// g0: the CTA's blocks before this item (the persistent form's, Schedule; 0 elsewhere), from which
// the rings' positions and phases count; past the item's last block `request_next(over, stage,
// bar)` requests block `over` of the items after it (the persistent form; a no-op elsewhere).
// The forms of one item per CTA: no block past the item's last (solve), nothing to claim (produce).
struct NoNextItem {
  template <class Stage>
  __device__ __forceinline__ void operator()(int, Stage&, uint64_t*) const {}
  __device__ __forceinline__ void operator()(int) const {}
};
// Whether a role's hook (solve's RequestNext, produce's OnBlock) is the persistent forms' (the
// timeline's rows by item).
template <class Hook>
constexpr bool kPersistentHook = !std::is_same<Hook, NoNextItem>::value;

template <int kConsumers, int kCtas, class RequestNext>
__device__ void solve(const FusedParams& p, const SliceItem& it, const Blocks& bl, Smem<kConsumers, kCtas>& sm, int rank,
                      int g0, RequestNext request_next) {
  using R = Roles<kConsumers, kCtas>;
  const int c0 = threadIdx.x - R::kFirstSolverThread, w = c0 / R::kSolverThreads;
  const int c = c0 % R::kSolverThreads, warp = c / 32, lane = c % 32;
  const float scale = p.r.value.scale;
  // The CTA's own blocks m (block n = rank + kCtas m), every other one per solver: solver w those
  // with g0 + m = w (mod 2).
  // (g0 + n = rank + kCtas w modulo kCtas kSolvers.)
  for (int n = R::kCtas == 1 || g0 == 0 ? rank + R::kCtas * (g0 == 0 ? w : (w - g0) & 1) : (rank + R::kCtas * w - g0) & 3;
       n < bl.count; n += R::kCtas * kSolvers) {
    const int m = (n - rank) / R::kCtas, gn = g0 + n;
    const int gm = R::kCtas == 1 ? g0 + m : g0 == 0 ? m : (gn - rank) / R::kCtas;
    const int si = gn & (R::kSlots - 1);
    Slot<kConsumers, kCtas>& slot = sm.slot[si];
    const StageTile& stage = sm.stage[gm & 1];
    const float* kq = sm.kq[gn % R::kKqRing];
    const int len = bl.len(n);
    auto wait_slot = [&] {  // the consumers have released the slot (block n - kSlots)
      if (gn >= R::kSlots) role_wait<R>(&sm.empty[si], uint32_t((gn >> R::kSlotsLog2) - 1) & 1);
    };
    role_wait<R>(&sm.formed[gm & 1], uint32_t(gm >> 1) & 1);
    // The vote: every channel within the range rule (fast), else (the pair form, the persistent
    // kernels) the tensor-core path with the failing channels' terms where few fail, or the exact
    // path.
    const bool fast = sm.fast[gm & 1];
    // The raw inputs of own block m + 2 go into raw stage m % 2 once nothing reads it: on the
    // tensor-core path at once (the producer read it before formed), on the exact path after the
    // solver's second barrier.
    auto request = [&] {
      if (n + 2 * R::kCtas < bl.count) issue_raw(p, it, bl, n + 2 * R::kCtas, sm.raw[gm & 1], &sm.raw_full[gm & 1]);
      else request_next(n + 2 * R::kCtas - bl.count, sm.raw[gm & 1], &sm.raw_full[gm & 1]);
    };
    if constexpr (kConsumers == 1) {
      // On the tensor-core path warps 0 and 1 form A's columns 8 v .. + 7, which are all that warp
      // v's part of the inverse reads, and invert at once; warps 2 and 3 form P and request the
      // raw inputs meanwhile (A then T measured 2,800 cycles per block against 3,000 with the four
      // warps' barrier between A/P and T). The exact path forms A and P on all four warps, then
      // the warpgroup's barrier.
      if (fast) {
        tensor_ap<kConsumers, kCtas>(kq, stage, sm.a[w], slot, warp, lane, nullptr, 0, wait_slot);
      } else if (few_failing(sm.failing[gm & 1])) {  // marked by the producer
        tensor_ap<kConsumers, kCtas>(kq, stage, sm.a[w], slot, warp, lane, nullptr, 0, wait_slot);
        __syncwarp();  // the warp's stores before its lanes add to them
        add_failing_terms<false>(sm.raw[gm & 1], sm.failing[gm & 1], len, scale, warp & 1, warp >= 2, sm.a[w], slot.p, lane);
        solver_sync<kConsumers, kCtas>(w);  // every read of raw stage m % 2 done
      } else {
        wait_slot();
        solver_sync<kConsumers, kCtas>(w);  // every warp's reads of A for its previous block done
        exact_ap(sm.raw[gm & 1], len, scale, sm.a[w], slot, warp, lane);
        solver_sync<kConsumers, kCtas>(w);  // A complete, and every read of raw stage m % 2 done
      }
      if (warp < 2) {
        mbarrier_arrive(&sm.stage_empty[gm & 1]);
        __syncwarp();  // the warp's A before its part of the inverse reads it
        invert(sm.a[w], sm.t22[w][(gm / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);
      } else {
        if (c == 96) request();
        mbarrier_arrive(&sm.stage_empty[gm & 1]);
      }
      wait_slot();  // every thread, so that no arrival for block n lands in block n - kSlots' phase
    } else {
      // The two warps form A and P (each over half the key channels, then each keeps a column
      // half: tensor_ap) and release the staging (so that the producer can stage block n + 2
      // during the inverse); then each warp does its part of the inverse.
      // The failing channels' terms in the persistent kernels only: in the one-item kernels their
      // code made the solvers spill. The GVA pair's persistent kernel takes them inside the exact
      // path's branch, its code where every channel passes as the one-item kernels' (it spilled
      // with the 128-channel form's single tensor_ap call, and the 128-channel form with this).
      if constexpr (R::kGvaPair || !kPersistentHook<RequestNext>) {
        if (fast) {
          if (c == 0) request();
          tensor_ap<kConsumers, kCtas>(kq, stage, sm.a[w], slot, warp, lane, sm.ap_part.v[w], kSolverBarrier + 2 * w,
                                       wait_slot);
        } else {
          bool few = false;
          if constexpr (R::kGvaPair && kPersistentHook<RequestNext>) {
            find_failing_channels<R::kSolverThreads>(sm.raw[gm & 1], len, scale, sm.stage[gm & 1], sm.failing[w], c);
            solver_sync<kConsumers, kCtas>(w);
            few = few_failing(sm.failing[w]);
          }
          if (few) {
            tensor_ap<kConsumers, kCtas>(kq, stage, sm.a[w], slot, warp, lane, sm.ap_part.v[w], kSolverBarrier + 2 * w,
                                         wait_slot);
            __syncwarp();  // the warp's stores before its lanes add to them
            add_failing_terms<true>(sm.raw[gm & 1], sm.failing[w], len, scale, warp, false, sm.a[w], slot.p, lane);
          } else {
            wait_slot();
            solver_sync<kConsumers, kCtas>(w);  // both warps' reads of A for its previous block done
            exact_ap(sm.raw[gm & 1], len, scale, sm.a[w], slot, warp, lane);
          }
          solver_sync<kConsumers, kCtas>(w);  // A complete, and every read of raw stage m % 2 done
          if (c == 0) request();
        }
      } else {
        // Where the vote failed and few channels fail (find_failing_channels): the tensor-core path
        // over the others, then their terms in fp32; with more, the exact path. Past tensor_ap the
        // vote and the count are read again from shared memory (the producer writes the vote of own
        // block m + 2 only after this solver's arrival on stage_empty): held in registers across
        // it, they spilled.
        bool tensor = fast;
        if (!fast) {
          find_failing_channels<R::kSolverThreads>(sm.raw[gm & 1], len, scale, sm.stage[gm & 1], sm.failing[w], c);
          solver_sync<kConsumers, kCtas>(w);
          tensor = few_failing(sm.failing[w]);
        }
        if (tensor) {
          if (fast && c == 0) request();
          tensor_ap<kConsumers, kCtas>(kq, stage, sm.a[w], slot, warp, lane, sm.ap_part.v[w], kSolverBarrier + 2 * w,
                                       wait_slot);
        } else {
          wait_slot();
          solver_sync<kConsumers, kCtas>(w);  // both warps' reads of A for its previous block done
          exact_ap(sm.raw[gm & 1], len, scale, sm.a[w], slot, warp, lane);
        }
        if (*reinterpret_cast<const volatile uint32_t*>(&sm.fast[gm & 1]) == 0) {
          if (few_failing(sm.failing[w])) {
            __syncwarp();  // the warp's stores before its lanes add to them
            add_failing_terms<true>(sm.raw[gm & 1], sm.failing[w], len, scale, warp, false, sm.a[w], slot.p, lane);
          }
          solver_sync<kConsumers, kCtas>(w);  // A complete, and every read of raw stage m % 2 done
          if (c == 0) request();
        }
      }
      mbarrier_arrive(&sm.stage_empty[gm & 1]);
      __syncwarp();  // the warp's A before its part of the inverse reads it
      invert(sm.a[w], sm.t22[w][(gm / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);
    }
    fence_proxy_async();  // this thread's writes of the slot before the products (and the copy) read them
    if (n == 0 && c == 0) GDN2_FUSED_ITEM_MARK(kPersistentHook<RequestNext>, it, kFusedSolvedNs, global_timer_ns());
    mbarrier_arrive(R::kSplitSlot ? &sm.solved[si] : &sm.full[si]);
    if constexpr (R::kCtas == 2) {
      // The pair forms: once the solver's part (T and P) is complete here, into the other CTA,
      // counted on that CTA's `full` (the pair form) or `solved` (the GVA pair: Roles::kSplitSlot;
      // the producer sends its part on `full`: produce). That CTA's consumers have released the
      // slot (block n - 4): this solver waited for it before storing.
      if (c == 0) {
        uint64_t* const part_bar = R::kSplitSlot ? &sm.solved[si] : &sm.full[si];
        role_wait<R>(part_bar, uint32_t(gn >> R::kSlotsLog2) & 1);
        using SlotT = Slot<kConsumers, kCtas>;
        send_to_peer(&slot, uint32_t(offsetof(SlotT, kend)), part_bar, rank ^ 1);
      }
    }
  }
}

// Warpgroup 0: every block of the item the CTA forms (own block m: block n = rank + kCtas m), its
// [Kb; Qg] in kq[n % kKqRing], its staging tile in stage m % 2 and its part of the slot in slot
// n % kSlots once the consumers have released it (in the pair form, then sent into the other CTA).
// The raw inputs of own block m arrive in raw stage m % 2, copied two own blocks ahead. g0 as in
// solve: rings and phases count from it; on_block(n) at the start of each block n (the persistent
// form's claim of the next item; a no-op elsewhere).
template <int kConsumers, int kCtas, class OnBlock>
__device__ void produce(const FusedParams& p, const SliceItem& it, const Blocks& bl, Smem<kConsumers, kCtas>& sm,
                        int rank, int g0, OnBlock on_block) {
  using R = Roles<kConsumers, kCtas>;
  const int c = threadIdx.x;
  const float scale = p.r.value.scale;
  const int slot_row = k_at_position(c);
#ifdef GDN2_PHASE1_TIMELINE
  int exact_blocks = 0;
#endif
  // The CTA's own blocks m: block n = rank + kCtas m.
  // Own blocks: g = g0 + n with g % kCtas = rank; own block counter gm = (g - rank) / kCtas.
  // The block count broadcast in the one-item forms, as in consume (there: no R2UR before each
  // wgmma; here 17 fewer instructions per block in the 64-channel pair form's loop).
  const int count = kPersistentHook<OnBlock> ? bl.count : __shfl_sync(0xffffffffu, bl.count, 0);
  for (int n = R::kCtas == 1 || g0 == 0 ? rank : (rank - g0) & 1; n < count; n += R::kCtas) {
    const int m = (n - rank) / R::kCtas, gn = g0 + n;
    const int gm = R::kCtas == 1 ? g0 + m : g0 == 0 ? m : (gn - rank) / R::kCtas;
    const int si = gn & (R::kSlots - 1);
    Slot<kConsumers, kCtas>& slot = sm.slot[si];
    RawStage<kConsumers, kCtas>& raw = sm.raw[gm & 1];
    const int len = bl.len(n);
    StageTile& stage = sm.stage[gm & 1];
    float* kq = sm.kq[gn % R::kKqRing];  // free: see Smem
    auto wait_slot = [&] {  // the consumers have released the slot (block n - kSlots)
      if (gn >= R::kSlots) role_wait<R>(&sm.empty[si], uint32_t((gn >> R::kSlotsLog2) - 1) & 1);
    };
    on_block(n);
    role_wait<R>(&sm.raw_full[gm & 1], uint32_t(gm >> 1) & 1);
    if (n == 0 && c == 0) GDN2_FUSED_ITEM_MARK(kPersistentHook<OnBlock>, it, kFusedRawNs, global_timer_ns());
    if (gm >= 2) role_wait<R>(&sm.stage_empty[gm & 1], uint32_t((gm >> 1) - 1) & 1);
    // Key channel c, token by token: the decays' running product r, Kb and Qg into kq and k / r
    // into the staging tile (rounded to TF32). The block's column is read into registers first,
    // all loads unconditional (rows past the sequence's end hold other tokens or TMA's zeros) and
    // issued before any use, then masked: read where they are used, the stage measured 2.2x longer.
    float d[kBlk], kk[kBlk], bb[kBlk], qq[kBlk];
#pragma unroll
    for (int t = 0; t < kBlk; ++t) {
      d[t] = raw.g[t][c];
      kk[t] = bf(raw.k[t][c]);
      bb[t] = bf(raw.b[t][c]);
      qq[t] = bf(raw.q[t][c]);
    }
    if (len < kBlk) {  // the sequence's last block (a uniform branch)
#pragma unroll
      for (int t = 0; t < kBlk; ++t) {
        const bool in = t < len;
        d[t] = in ? d[t] : 0.f;
        kk[t] = in ? kk[t] : 0.f;
        bb[t] = in ? bb[t] : 0.f;
        qq[t] = in ? qq[t] : 0.f;
      }
    }
    // The range rule (kMaxKinv, kMaxRow) on sums of magnitudes: a NaN or an infinity fails it too.
    float sum_ki = 0.f, sum_row = 0.f;
    float r = 1.f;
#pragma unroll
    for (int t = 0; t < kBlk; ++t) {
      d[t] = fast_exp2(decay_log2(d[t]));
      r *= d[t];
      const float kb = bb[t] * kk[t] * r;
      const float qg = scale * qq[t] * r;
      float inv;
      asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(inv) : "f"(r));
      const float ki = kk[t] * inv;
      sum_ki += fabsf(ki);
      sum_row += fabsf(kb) + fabsf(qg);
      bb[t] = round_tf32(kb);
      qq[t] = round_tf32(qg);
      inv = round_tf32(ki);
      stage[t][c] = inv;
    }
    const bool ok = sum_ki <= kMaxKinv && sum_row <= kMaxRow;
    // Row R's word of channel c, sw128::offset(R, c, kKqRows), is (x0 ^ 4 (R % 8)) + 32 R with x0
    // row 0's: the swizzle flips bits 2-4, where x0 holds c % 32 and 32 R adds nothing. x0 through
    // a volatile copy, so that the eight swizzled words are formed per block, not held in registers
    // across the loop (the producer's 96 spilled).
    int x0;
    asm volatile("mov.b32 %0, %1;" : "=r"(x0) : "r"(sw128::offset(0, c, kKqRows)));
    if constexpr (R::kCtas == 2) wait_slot();  // kq[n % 4]'s last readers: block n - 4 (Smem)
    if constexpr (R::kGvaPair) {
      // Both CTAs' v and w of block n, each its own head's (value heads h and h ^ 1), into slot
      // n % 4 of each: the slot is free in both (its release counts both CTAs' consumers).
      if (c == 0) {
        const int y = bl.y0 + n * kBlk;
        uint16_t* vw = vw_of(slot);
        mbarrier_expect_tx(&sm.full[si], kVwBytes);
        tma_load_2d(vw, &p.r.value.v_map, it.h * kV, y, &sm.full[si]);
        tma_load_2d(vw + kBlk * kVwLd, &p.r.value.w_map, it.h * kV, y, &sm.full[si]);
        const uint16_t to_peer = uint16_t(1u << (rank ^ 1));
        tma_load_2d_multicast(vw, &p.r.value.v_map, (it.h ^ 1) * kV, y, &sm.full[si], to_peer);
        tma_load_2d_multicast(vw + kBlk * kVwLd, &p.r.value.w_map, (it.h ^ 1) * kV, y, &sm.full[si], to_peer);
      }
    }
#pragma unroll
    for (int t = 0; t < kBlk; ++t) {
      const int row = k_at_position(t), at = (x0 ^ ((row & 7) << 2)) + 32 * row;
      kq[at] = bb[t];
      kq[at + 32 * kBlk] = qq[t];
    }
    // w v of token c / 8, value channels 8 (c % 8) + 64 h .. + 7 (h < 2: the two consumers, or in
    // the pair form the two CTAs).
    constexpr int kHalves = R::kFormV / kConsumerRows;
    float wv[8 * kHalves];
#pragma unroll
    for (int h = 0; h < (R::kGvaPair ? 0 : kHalves); ++h) {
      const int tok = c / 8;
      const uint4 vv = *reinterpret_cast<const uint4*>(&raw.v[tok][8 * (c % 8) + kConsumerRows * h]);
      const uint4 ww = *reinterpret_cast<const uint4*>(&raw.w[tok][8 * (c % 8) + kConsumerRows * h]);
      const uint32_t va[4] = {vv.x, vv.y, vv.z, vv.w}, wa[4] = {ww.x, ww.y, ww.z, ww.w};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        wv[8 * h + 2 * e] = tok < len ? __uint_as_float(va[e] << 16) * __uint_as_float(wa[e] << 16) : 0.f;
        wv[8 * h + 2 * e + 1] = tok < len ? __uint_as_float(va[e] & 0xffff0000u) * __uint_as_float(wa[e] & 0xffff0000u) : 0.f;
      }
    }
    // The staging, the raw stage's last read (on an exact block, its d written over g) and the vote
    // to the solver; then the slot's part of the producer once the consumers have released it
    // (block n - kSlots; in the pair form waited for before kq).
    const bool fast = producer_sync_and(ok);
    if (c == 0) sm.fast[gm & 1] = fast;
#ifdef GDN2_PHASE1_TIMELINE
    exact_blocks += fast ? 0 : 1;
#endif
    if (!fast) {
      // The decay factors over g, read by the solver's fp32 sums (g is not read again; a uniform
      // branch). In the pair form the producer also marks the failing channels for the solver and
      // writes their k / r as zeros (find_failing_channels, which the other forms' solvers run).
#pragma unroll
      for (int t = 0; t < kBlk; ++t) raw.g[t][c] = d[t];
      if constexpr (kConsumers == 1) {
        const uint32_t failing = __ballot_sync(0xffffffffu, !ok);
        if ((c & 31) == 0) sm.failing[gm & 1][c / 32] = failing;
        if (!ok) {
#pragma unroll
          for (int t = 0; t < kBlk; ++t) stage[t][c] = 0.f;
        }
      }
      fence_proxy_async();  // before the stage's next TMA write, which the solver requests after formed
    }
    mbarrier_arrive(&sm.formed[gm & 1]);
    if (n == 0 && c == 0) GDN2_FUSED_ITEM_MARK(kPersistentHook<OnBlock>, it, kFusedFormedNs, global_timer_ns());
    if constexpr (R::kCtas == 1) wait_slot();
    {
      float e = 1.f, ke[kBlk];
#pragma unroll
      for (int t = kBlk - 1; t >= 0; --t) {
        ke[t] = kk[t] * e;
        e *= d[t];
      }
#pragma unroll
      for (int u = 0; u < kBlk / 4; ++u)
        *reinterpret_cast<float4*>(&slot.kend[kmajor_offset(slot_row, 4 * u, kBlk)]) =
            make_float4(round_tf32(ke[4 * u]), round_tf32(ke[4 * u + 1]), round_tf32(ke[4 * u + 2]), round_tf32(ke[4 * u + 3]));
      slot.d[d_index<R::kQuadD>(slot_row)] = r;
      // This thread's 8 channels of w*v, two float4s. The 8 lanes of a store's phase (one token
      // row) are 32 bytes apart; in the pair form lanes 4-7 of each 8 store their upper half first,
      // so that each store meets all 32 banks once (in one order, 16 banks twice: two wavefronts
      // a phase).
      const int upper_first = R::kQuadD ? (c >> 2) & 1 : 0;
#pragma unroll
      for (int h = 0; h < (R::kGvaPair ? 0 : kHalves); ++h) {
        float* dst = R::kCtas == 2 ? &slot.wv[h][k_at_position(c / 8)][8 * (c % 8)]
                                   : &slot.wv[0][k_at_position(c / 8)][8 * (c % 8) + kConsumerRows * h];
        const float4 lo = make_float4(wv[8 * h], wv[8 * h + 1], wv[8 * h + 2], wv[8 * h + 3]);
        const float4 hi = make_float4(wv[8 * h + 4], wv[8 * h + 5], wv[8 * h + 6], wv[8 * h + 7]);
        *reinterpret_cast<float4*>(dst + 4 * upper_first) = upper_first ? hi : lo;
        *reinterpret_cast<float4*>(dst + 4 - 4 * upper_first) = upper_first ? lo : hi;
      }
    }
    fence_proxy_async();  // this thread's writes of the slot before the products (and the copy) read them
    mbarrier_arrive(&sm.full[si]);
    if constexpr (R::kCtas == 2) {
      // The pair form: the producer's part (kq, Kend^T, D, the other CTA's w*v) into the other CTA
      // once every producer thread has stored it, counted on that CTA's `full`. Its consumer has
      // released the slot and kq there (block n - 4): waited for before kq.
      asm volatile("bar.sync %0, %1;\n" ::"n"(kProducerBarrier), "n"(kWarpgroup) : "memory");
      if (c == 0) {
        const int peer = rank ^ 1;
        send_to_peer(kq, kKqRows * kK * sizeof(float), &sm.full[si], peer);
        using SlotT = Slot<kConsumers, kCtas>;
        send_to_peer(&slot.kend, uint32_t(offsetof(SlotT, wv) - offsetof(SlotT, kend)),
                     &sm.full[si], peer);
        if constexpr (!R::kGvaPair) send_to_peer(&slot.wv[peer], sizeof(slot.wv[peer]), &sm.full[si], peer);
      }
    }
  }
#ifdef GDN2_PHASE1_TIMELINE
  if (c == 0) GDN2_FUSED_ITEM_MARK(kPersistentHook<OnBlock>, it, kFusedExactBlocks, exact_blocks);
#endif
}

// A consumer thread's state, st[4 j + 2 h + e] = element (row + 8 h, channel 8 j + 4 e + tq) of
// the item's [V][K] slice at `base` (consume): read (zeros where base < 0: no initial state) and
// written (nothing where base < 0) four adjacent channels per access. For row + 8 h and a pair of
// column blocks j = 2 m, 2 m + 1, a quad's 16 channels 16 m + x are x = 4 s + t in lane t's slot
// s = 2 (j - 2 m) + e, and lane u accesses x = 4 u .. 4 u + 3, slot t' of its access holding
// x = 4 u + t' (lane t''s slot u): a 4 x 4 transpose of (lane, slot) within the quad, which is its
// own inverse, in two shuffle steps (lanes t ^ 1, then t ^ 2). A warp's access then covers 64
// bytes of each of its 8 rows (fp32), where pairs of channels took two accesses of 32 and single
// channels four of 16.
__device__ __forceinline__ int64_t state_quad_at(int row, int tq, int m, int h) {
  return int64_t(row + 8 * h) * kK + 16 * m + 4 * tq;
}
// st's slot s of (m, h): st[8 m + 4 (s >> 1) + 2 h + (s & 1)].
__device__ __forceinline__ int quad_slot(int m, int h, int s) { return 8 * m + 4 * (s >> 1) + 2 * h + (s & 1); }
// The (lane, slot) transpose of the quad for (m, h): slot s of lane t <-> slot t of lane s.
__device__ __forceinline__ void transpose_quad(float* st, int m, int h, int tq) {
  const bool t0 = (tq & 1) != 0, t1 = (tq & 2) != 0;
  // Step 1, lanes t ^ 1: the slots whose bit 0 differs from the lane's bit 0 (received into the same).
#pragma unroll
  for (int s1 = 0; s1 < 2; ++s1) {
    float& a = st[quad_slot(m, h, 2 * s1)];
    float& b = st[quad_slot(m, h, 2 * s1 + 1)];
    const float other = __shfl_xor_sync(0xffffffffu, t0 ? a : b, 1);
    a = t0 ? other : a;
    b = t0 ? b : other;
  }
  // Step 2, lanes t ^ 2: the slots whose bit 1 differs from the lane's bit 1.
#pragma unroll
  for (int s0 = 0; s0 < 2; ++s0) {
    float& a = st[quad_slot(m, h, s0)];
    float& b = st[quad_slot(m, h, 2 + s0)];
    const float other = __shfl_xor_sync(0xffffffffu, t1 ? a : b, 2);
    a = t1 ? other : a;
    b = t1 ? b : other;
  }
}
__device__ __forceinline__ void load_state_quads(const StatePassParams& pv, int64_t base, int row, int tq, float* st) {
  // Every load first, then the transposes (a shuffle beside each load would make each load wait
  // for the one before it).
#pragma unroll
  for (int m = 0; m < kK / 16; ++m)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float v[4] = {0.f, 0.f, 0.f, 0.f};
      if (base >= 0) load_state<4>(pv, base + state_quad_at(row, tq, m, h), v);
#pragma unroll
      for (int s = 0; s < 4; ++s) st[quad_slot(m, h, s)] = v[s];
    }
#pragma unroll
  for (int m = 0; m < kK / 16; ++m)
#pragma unroll
    for (int h = 0; h < 2; ++h) transpose_quad(st, m, h, tq);
}
// Leaves st transposed: the store is the item's last use of it.
__device__ __forceinline__ void store_state_quads(const StatePassParams& pv, int64_t base, int row, int tq, float* st) {
  if (base < 0) return;  // the same in every thread of the CTA (one item)
#pragma unroll
  for (int m = 0; m < kK / 16; ++m)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      transpose_quad(st, m, h, tq);
      float v[4];
#pragma unroll
      for (int s = 0; s < 4; ++s) v[s] = st[quad_slot(m, h, s)];
      store_state<4>(pv, base + state_quad_at(row, tq, m, h), v);
    }
}

// The GVA pair's persistent form stores its state two adjacent channels per access: lanes tq and
// tq ^ 1 swap one element per (j, h), and an even lane stores channels 8 j + tq and + 1, an odd one
// 8 j + 3 + tq and + 1. (Its blocks ran 4% slower with quads' stores, 1% faster with these: the
// schedule that ptxas gives the consumers' loop.)
__device__ __forceinline__ int64_t state_pair_at(int row, int tq, int j, int h) {
  return int64_t(row + 8 * h) * kK + 8 * j + ((tq & 1) != 0 ? 3 + tq : tq);
}
__device__ __forceinline__ void store_state_pairs(const StatePassParams& pv, int64_t base, int row, int tq, const float* st) {
  if (base < 0) return;  // the same in every thread of the CTA (one item)
  const bool odd = (tq & 1) != 0;
#pragma unroll
  for (int j = 0; j < kK / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float e0 = st[4 * j + 2 * h], e1 = st[4 * j + 2 * h + 1];
      const float other = __shfl_xor_sync(0xffffffffu, odd ? e0 : e1, 1);
      const float pair[2] = {odd ? other : e0, odd ? e1 : other};
      store_state<2>(pv, base + state_pair_at(row, tq, j, h), pair);
    }
}

// Consumer ci: thread (warp w, lane (g, t)) holds rows v = 64 ci + 16 w + g, + 8 of every
// accumulator (value channels of the CTA); S^T's columns are key channels in slot order. g0 as in
// solve. kPersistent: the persistent form, where an item whose state index is past its pool
// (StateOffsets::bad) reaches the consumers (elsewhere the kernel's prologue takes it): they run
// its blocks from a zero state, touch no state, and then write NaN over its output rows.
template <int kConsumers, int kCtas, bool kPersistent = false>
__device__ void consume(const FusedParams& p, const SliceItem& it, const Blocks& bl, Smem<kConsumers, kCtas>& sm, int ci,
                        int rank, int g0) {
  using R = Roles<kConsumers, kCtas>;
  const StatePassParams& pv = p.r.value;
  const int tid = threadIdx.x - (Roles<kConsumers, kCtas>::kFirstConsumer + ci) * kWarpgroup, lane = tid & 31;
  const int row = kConsumerRows * ci + 16 * (tid / 32) + (lane >> 2), tq = lane & 3;
  float st[kK / 2];  // st[4 j + 2 h + e] = S^T(row + 8 h, channel k_position(8 j + 2 tq + e))
  // Where st[4 j + 2 h + e] lies in the item's slice of a [V][K] state (initial and final). The
  // 128-channel form computes the offsets here, before the blocks and again after them; the pair
  // forms read them from shared memory (Smem::state). Each is the faster of the two for its form
  // on an H200 (by 2-3% on the 128-channel form, up to 2% on the pair forms), through ptxas's
  // schedule of every role's loop, not through more or less work
  // (bench/results/2026-12-06-regress/).
  auto item_state = [&] { return R::kCtas == 1 || kPersistent ? state_offsets(pv, it.s, it.h, it.v0) : sm.state; };
  auto state_at = [&](int j, int h, int e) { return (row + 8 * h) * kK + 8 * j + 4 * e + tq; };
  const StateOffsets first = item_state();
  const bool bad = kPersistent && first.bad();
  const int64_t h0 = bad ? kNoState : first.h0;
  // The persistent forms, whose consumers store a state per item, store it by quads of channels
  // (the 128-channel form) or pairs (its GVA pair), and the 128-channel one reads it by quads too;
  // the others read single elements, and the one-item forms store them: there, and in the GVA
  // pair's reads, quads made the blocks 2-4% slower through ptxas's schedule of the consumers' loop
  // (docs/performance.md, "The state by quads of channels").
  if constexpr (kPersistent && R::kCtas == 1) load_state_quads(pv, h0, row, tq, st);
  else load_state_elements<kK / 2>(pv, h0, [&](int i) { return state_at(i / 4, (i / 2) % 2, i % 2); }, st);

  const int64_t row_stride = int64_t(pv.Hv) * kV;
  // A block's output rows within its first token's: offsets below 2^31 (kMaxHeads), one 32-bit
  // multiply each.
  static_assert(int64_t(kMaxHeads) * kV * kBlk < (int64_t(1) << 31), "a block's output offsets fit int32");
  const int row_stride32 = int(row_stride);
  uint16_t* out = pv.out + it.sb.bos * row_stride + it.h * kV + it.v0 + row;  // block n's rows: out + 16 n row_stride
  const int peer = rank ^ 1;  // the pair forms' other CTA
  // The block count as a value the compiler knows is the same in every lane (a broadcast), so that
  // the block counter and the slot, kq and descriptor arithmetic from it live in uniform registers
  // and each wgmma's descriptor needs no move from a vector register (R2UR) on the chain. The
  // persistent forms' counter is uniform already (their g0 comes from the item schedule).
  const int count = kPersistent ? bl.count : __shfl_sync(0xffffffffu, bl.count, 0);
  // Block n's body. An item that starts from a zero state (no initial state, or a pool slot of
  // none) runs block 0 without the products of the state (from_state false): S^T [Kb; Qg]^T is
  // zero there, and so is the decayed S^T; the results are bit for bit the same. The choice is made
  // once per item, below, between two loops: inside one loop, a run-time branch around the first
  // product made ptxas serialise the wgmma (C7514, C7517), and one loop after a separate block 0
  // spilled (docs/performance.md, "Block 0 from a zero state").
  const bool leader = ci == 0 && tid == 0;  // the consumers' thread 0 (hoisted: no S2R per block)
  auto block = [&](const int n, auto from_state_t) {
    constexpr bool from_state = decltype(from_state_t)::value;
    const int gn = g0 + n;
    const int si = gn & (R::kSlots - 1);
    const uint32_t parity = uint32_t(gn >> R::kSlotsLog2) & 1;
    const bool own = R::kCtas == 1 || (gn & 1) == rank;  // formed by this CTA
    Slot<kConsumers, kCtas>& slot = sm.slot[si];
    float* const kq = sm.kq[gn % R::kKqRing];
    const uint64_t kq_desc = sw128_desc<kKqRows>(kq, 0);
    auto kq_step = [&](int first) {  // the descriptor of kq's k-step first + s
      return [=](int s) { return sw128_desc_at_step<kKqRows>(kq_desc, first + s); };
    };
    const int len = bl.len(n);
    // -S^T [Kb; Qg]^T as one m64n32 product: columns 0-15 -(S^T Kb^T), 16-31 -O1^T. (With the
    // accumulator preset to [(w v)^T | 0], ptxas serialises the products: C7511.) With two
    // consumers the state's A fragments take 32 registers, not 64, so that they fit beside the
    // producer's and the solvers': k-steps 0-7 here, then 8-11 and 12-15 into its halves as the
    // products before them complete (below).
    constexpr int kSteps = kConsumers == 1 ? kK / 8 : kK / 16;  // k-steps per part
    uint32_t sa[4 * kSteps];
    // The state's A fragments of k-steps first .. + kQuarter - 1 into sa's half `half`.
    constexpr int kQuarter = kK / 32;
    auto quarter_to_a = [&](int first, int half) {
      acc_to_a<kQuarter>(*reinterpret_cast<const float(*)[4 * kQuarter]>(&st[4 * first]),
                         *reinterpret_cast<uint32_t(*)[4 * kQuarter]>(&sa[4 * kQuarter * half]));
    };
    if constexpr (from_state) acc_to_a<kSteps>(*reinterpret_cast<const float(*)[4 * kSteps]>(&st[0]), sa);
    // The first product and w*v need only the producer's part: with two consumers they run while
    // the block's solver may still be forming T and P. (With one, the early start slowed the
    // steady state: docs/performance.md, "The slot's barrier split".)
    float rt[8], on[8];  // R^T, and -O1^T then -O^T
    // Pair forms: a block the other CTA formed arrives by its copies (produce, solve): the one
    // arrival here on `full` (and in the GVA pair on `solved`), with the bytes.
    if (R::kCtas == 2 && !own && leader) {
      mbarrier_expect_bytes(&sm.full[si], kPeerFullBytes<kConsumers, kCtas>);
      if constexpr (R::kSplitSlot) mbarrier_expect_bytes(&sm.solved[si], kPeerSolverBytes<kConsumers, kCtas>);
    }
    role_wait<R>(&sm.full[si], parity);
    if (n == 0 && leader) GDN2_FUSED_ITEM_MARK(kPersistent, it, kFusedFirstNs, global_timer_ns());
    float x[16];
    if constexpr (from_state) {
      fence_operands(x);
      fence_operands(sa);
      wgmma_fence();
      if constexpr (kConsumers == 1) {
        wgmma_issue_desc<32, -1, kSteps, false>(x, sa, kq_step(0));
      } else {
        // Two consumers: four quarters of 4 k-steps through sa's two halves (quarters 0 and 1
        // formed above), each quarter's fragments formed while the quarter before it runs: a
        // half is formed again once its product is complete (at most one group pending).
        using Half = uint32_t[4 * kQuarter];
        Half& sa0 = *reinterpret_cast<Half*>(&sa[0]);
        Half& sa1 = *reinterpret_cast<Half*>(&sa[4 * kQuarter]);
        wgmma_issue_desc<32, -1, kQuarter, false>(x, sa0, kq_step(0));
        wgmma_commit();
        wgmma_issue_desc<32, -1, kQuarter>(x, sa1, kq_step(kQuarter));
        wgmma_commit();
#pragma unroll
        for (int q = 2; q < 4; ++q) {
          wgmma_wait<1>();
          fence_operands(sa);
          quarter_to_a(kQuarter * q, q & 1);
          fence_operands(sa);
          wgmma_fence();
          wgmma_issue_desc<32, -1, kQuarter>(x, q & 1 ? sa1 : sa0, kq_step(kQuarter * q));
          wgmma_commit();
        }
      }
      if constexpr (kConsumers == 1) wgmma_commit();
    } else {
#pragma unroll
      for (int i = 0; i < 16; ++i) x[i] = 0.f;
    }
    if constexpr (!R::kGvaPair) {
      const auto& wv = slot.wv[R::kCtas == 2 ? rank : 0];  // this CTA's channels
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) rt[4 * j + 2 * h + e] = wv[8 * j + 2 * tq + e][row + 8 * h];
    } else {
      // w*v from the slot's v and w by ldmatrix .trans: matrix 2 j + h (lanes 8 (2 j + h) .. + 7
      // give its rows) is slot positions 8 j .. + 7 (token 8 j + k_position(r) in row r = lane % 8) x the
      // channels 8 h .. + 7 of this warp's 16, so that lane (g, tq) receives the tokens of positions
      // 8 j + 2 tq + e (e = 0 low, 1 high half) at channel row + 8 h: rt's element 4 j + 2 h + e.
      const int mat = lane >> 3, mrow = lane & 7;
      const uint16_t* vw = vw_of(slot) + (8 * (mat >> 1) + k_position(mrow)) * kVwLd +
                           (kConsumerRows * ci + 16 * (tid / 32) + 8 * (mat & 1));
      uint32_t vv[4], ww[4];
      ldmatrix_x4_trans(vv, vw);
      ldmatrix_x4_trans(ww, vw + kBlk * kVwLd);
#pragma unroll
      for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const uint32_t v2 = vv[2 * j + h], w2 = ww[2 * j + h];
            const float vw_x = __uint_as_float(e ? v2 & 0xffff0000u : v2 << 16) * __uint_as_float(e ? w2 & 0xffff0000u : w2 << 16);
            rt[4 * j + 2 * h + e] = 8 * j + 4 * e + tq < len ? vw_x : 0.f;  // zero past the sequence's end
          }
    }
    // S^T diag(D), in place, while T's product runs (off the chain from that product to the
    // state update, which accumulates into st).
    auto decay_state = [&] {
      if constexpr (R::kQuadD) {  // D of columns 8 j + 2 tq + e and 8 (j + 1) + 2 tq + e: one float4
#pragma unroll
        for (int j = 0; j < kK / 8; j += 2) {
          float dd[4];
          *reinterpret_cast<float4*>(dd) = *reinterpret_cast<const float4*>(&slot.d[d_index<true>(8 * j + 2 * tq)]);
#pragma unroll
          for (int i = 0; i < 4; ++i) {  // column 8 (j + i / 2) + 2 tq + i % 2, rows row and row + 8
            st[4 * j + 2 * (i & ~1) + (i & 1)] *= dd[i];
            st[4 * j + 2 * (i & ~1) + 2 + (i & 1)] *= dd[i];
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < kK / 8; ++j) {
          const float2 dd = *reinterpret_cast<const float2*>(&slot.d[8 * j + 2 * tq]);
          st[4 * j] *= dd.x;
          st[4 * j + 1] *= dd.y;
          st[4 * j + 2] *= dd.x;
          st[4 * j + 3] *= dd.y;
        }
      }
    };
    if constexpr (from_state) {
      wgmma_wait<0>();
      fence_operands(x);
      fence_operands(sa);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) rt[i] += x[i], on[i] = x[8 + i];

    uint32_t ra[8];
    acc_to_a<2>(rt, ra);
    if constexpr (R::kSplitSlot) role_wait<R>(&sm.solved[si], parity);
    float u[8];
    fence_operands(u);
    fence_operands(ra);
    wgmma_fence();
    wgmma_issue<16, 1, kBlk, 2, false>(u, ra, slot.t);
    wgmma_commit();
    if constexpr (from_state) decay_state();
    wgmma_wait<0>();
    fence_operands(u);
    fence_operands(ra);

    uint32_t ua[8];
    acc_to_a<2>(u, ua);
    fence_operands(on);
    fence_operands(st);
    fence_operands(ua);
    wgmma_fence();
    wgmma_issue<16, -1, kBlk, 2>(on, ua, slot.p);
    wgmma_issue<128, 1, kBlk, 2>(st, ua, slot.kend);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(on);
    fence_operands(st);
    fence_operands(ua);
    if constexpr (R::kCtas == 1) {
      mbarrier_arrive(&sm.empty[si]);
    } else {  // one arrival per warp, on the forming CTA's barrier
      __syncwarp();
      if (lane == 0) {
        if (own) mbarrier_arrive(&sm.empty[si]);
        else mbarrier_arrive_remote(peer_address(&sm.empty[si], peer));
      }
    }

#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int tok = 8 * j + 4 * e + tq;
          if (tok < len) out[tok * row_stride32 + 8 * h] = float_to_bf16(-on[4 * j + 2 * h + e]);
        }
  };
  // (The flag broadcast, so that the compiler knows it is the same in every lane.)
  if (__shfl_sync(0xffffffffu, int(h0 < 0), 0) != 0 && count > 0) {
    block(0, std::false_type{});
    out += kBlk * row_stride;
    for (int n = 1; n < count; ++n, out += kBlk * row_stride) block(n, std::true_type{});
  } else {
    for (int n = 0; n < count; ++n, out += kBlk * row_stride) block(n, std::true_type{});
  }
  if (kPersistent && bad) {
    // Every consumer thread's output stores of the item before the NaN over them (same addresses,
    // other threads).
    asm volatile("bar.sync %0, %1;\n" ::"n"(kConsumerBarrier), "n"(kConsumers * kWarpgroup) : "memory");
    const int t = tid + kWarpgroup * ci;
    constexpr int kPairs = kV / 2;
    for (int64_t idx = t; idx < (it.sb.eos - it.sb.bos) * kPairs; idx += kConsumers * kWarpgroup) {
      const int64_t off = ((it.sb.bos + idx / kPairs) * pv.Hv + it.h) * kV + 2 * (idx % kPairs);
      *reinterpret_cast<uint32_t*>(pv.out + off) = 0x7fc07fc0u;  // two bf16 NaNs
    }
  } else {
    const int64_t ht = item_state().ht;
    if constexpr (kPersistent && R::kCtas == 2) store_state_pairs(pv, ht, row, tq, st);
    else if constexpr (kPersistent) store_state_quads(pv, ht, row, tq, st);
    else store_state_elements<kK / 2>(pv, ht, [&](int i) { return state_at(i / 4, (i / 2) % 2, i % 2); }, st);
  }
  if (ci == 0 && tid == 0) GDN2_FUSED_ITEM_MARK(kPersistent, it, kFusedEndNs, global_timer_ns());
#ifdef GDN2_PHASE1_TIMELINE
  if (kPersistent && ci == 0 && tid == 0) {  // the item's SM and sizes (elsewhere: the CTA's, its prologue)
    uint32_t sm_id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_id));
    GDN2_FUSED_ITEM_MARK(kPersistent, it, kFusedSm, sm_id);
    GDN2_FUSED_ITEM_MARK(kPersistent, it, kFusedSequence, it.s);
    GDN2_FUSED_ITEM_MARK(kPersistent, it, kFusedBlocks, bl.count);
  }
#endif
}

#ifdef GDN2_PHASE1_TIMELINE
// Thread 0: the CTA's SM and start in the timeline.
__device__ __forceinline__ void mark_cta_start(const FusedParams& p, long long start_ns) {
  uint32_t sm_id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_id));
  GDN2_FUSED_MARK(kFusedSm, sm_id);
  GDN2_FUSED_MARK(kFusedStartNs, start_ns);
}
#endif

// Thread 0, before the roles start: the barriers (their arrival counts), and the TMA descriptors
// prefetched.
template <int kConsumers, int kCtas>
__device__ __forceinline__ void init_barriers(const FusedParams& p, Smem<kConsumers, kCtas>& sm, int rank) {
  using R = Roles<kConsumers, kCtas>;
  for (int k = 0; k < R::kSlots; ++k) {
    // The producer's threads, and the slot's solver's on `full` or `solved`; in the pair forms
    // the other CTA's slots: the consumers' one arrival (and the bytes copied in) on each.
    const bool own = R::kCtas == 1 || (k & 1) == rank;
    mbarrier_init(&sm.full[k], own ? kWarpgroup + (R::kSplitSlot ? 0 : R::kSolverThreads) : 1);
    mbarrier_init(&sm.solved[k], own || !R::kSplitSlot ? R::kSolverThreads : 1);  // (the pair form: unused)
    if (k < 2) {  // the rings of the CTA's own blocks
      mbarrier_init(&sm.formed[k], kWarpgroup);
      mbarrier_init(&sm.stage_empty[k], R::kSolverThreads);
    }
    // Every consumer thread; in the pair form each warp of both CTAs' consumers.
    mbarrier_init(&sm.empty[k], R::kCtas == 2 ? R::kCtas * kConsumers * kWarpgroup / 32 : kConsumers * kWarpgroup);
    if (k < 2) mbarrier_init(&sm.raw_full[k], 1);
  }
  fence_barrier_init();
  const StatePassParams& pv = p.r.value;
  for (const TensorMap* map : {&p.q_map, &p.k_map, &p.b_map, &p.g_map, &pv.v_map, &pv.w_map})
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

template <int kConsumers, int kCtas>
__global__ void __launch_bounds__(kThreads, 1) fused_kernel(const __grid_constant__ FusedParams p) {
  using R = Roles<kConsumers, kCtas>;
  // kq's swizzle reads the address (sw128): `.extern .shared .align 1024` in the PTX.
  extern __shared__ __align__(1024) float4 smem_raw[];
  Smem<kConsumers, kCtas>& sm = *reinterpret_cast<Smem<kConsumers, kCtas>*>(smem_raw);
  const StatePassParams& pv = p.r.value;
#ifdef GDN2_PHASE1_TIMELINE
  const long long start_ns = global_timer_ns();
#endif
  if constexpr (R::kEarlyStart) {
    const bool go = enter_after_prior_grid<kThreads>(pv.seq, [&] { init_barriers(p, sm, int(cluster_rank())); }, cluster_arrive);
    if (p.r.zero_at_start != nullptr && blockIdx.x == 0 && p.item_base == 0 && threadIdx.x == 0) *p.r.zero_at_start = 0;
    if (!go) return;  // another path runs
  } else {
    const bool choice = pv.seq.choice != kAlwaysRuns;  // kAuto's choice on the device (kernel_params.h)
    if (choice) allow_dependent_launch();
    if (p.r.zero_at_start != nullptr && blockIdx.x == 0 && p.item_base == 0 && threadIdx.x == 0) *p.r.zero_at_start = 0;
    if (!path_is_chosen<kThreads>(pv.seq)) {  // another path runs
      leave_unchosen_path();
      return;
    }
    if (choice) wait_for_prior_grid();  // a no-op unless this is the call's second path
  }
  // Every CTA checks all N + 1 offsets (N Hv kSlices CTAs in all: kAuto takes this path only up
  // to 4096 sequences, src/contract.cpp); inconsistent cu_seqlens: NaN in every output row and state.
  const bool fault = cu_seqlens_fault<kThreads>(pv.seq);
  const SliceItem it = slice_item<R::kSlices>(pv, p.item_base + blockIdx.x);
  if (fault) {
    fill_nan<R::kSliceV, kThreads>(pv, it.s, it.h, it.v0, state_offsets(pv, it.s, it.h, it.v0).ht);
    return;
  }
  // A state index past its pool: the same for both CTAs of a pair (one sequence), so both leave here.
  const StateOffsets state = state_offsets(pv, it.s, it.h, it.v0);
  if (state.bad()) {
    fill_nan_rows<R::kSliceV, kThreads>(pv, it.sb, it.h, it.v0);
    return;
  }
  const Blocks bl = item_blocks(it);
#ifdef GDN2_PHASE1_TIMELINE
  if (threadIdx.x == 0) {
    mark_cta_start(p, start_ns);
    GDN2_FUSED_MARK(kFusedSequence, it.s);
    GDN2_FUSED_MARK(kFusedBlocks, bl.count);
  }
#endif
  // The pair form: the head's two CTAs are a cluster (rank = item % 2, the slice), and each forms
  // the blocks n with n % 2 = rank.
  const int rank = R::kCtas == 2 ? int(cluster_rank()) : 0;
  if (threadIdx.x == 0) {
    if constexpr (R::kCtas == 2 && !R::kEarlyStart) sm.state = state;
    if constexpr (!R::kEarlyStart) init_barriers(p, sm, rank);
    for (int k = 0; k < 2 && rank + R::kCtas * k < bl.count; ++k)
      issue_raw(p, it, bl, rank + R::kCtas * k, sm.raw[k], &sm.raw_full[k]);
    GDN2_FUSED_MARK(kFusedIssuedNs, global_timer_ns());
  }
  // Both CTAs' barriers initialised before either arrives on or copies into the other's (in the
  // pair form each CTA arrived as soon as its own were: enter_after_prior_grid; its roles then
  // share nothing written since but through barriers: its consumers write sm.state themselves).
  if constexpr (R::kEarlyStart) {
    cluster_wait();
  } else if constexpr (R::kCtas == 2) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  const int wg = warpgroup_index();
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R::kProducerRegs));
    produce(p, it, bl, sm, rank, 0, NoNextItem{});
  } else if (wg >= R::kFirstConsumer && wg < R::kFirstConsumer + kConsumers) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R::kConsumerRegs));
    if constexpr (R::kEarlyStart) {  // the pair form: the one consumer warpgroup writes sm.state
      if (threadIdx.x == R::kFirstConsumer * kWarpgroup) sm.state = state;
      asm volatile("bar.sync %0, %1;\n" ::"n"(kConsumerBarrier), "n"(kWarpgroup) : "memory");
    }
    consume(p, it, bl, sm, wg - R::kFirstConsumer, rank, 0);
  } else {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R::kSolverRegs));
    solve(p, it, bl, sm, rank, 0, NoNextItem{});
  }
  // Neither CTA of a pair exits while the other may still arrive on its barriers (the consumers'
  // release) or its copies may still read its shared memory.
  if constexpr (R::kCtas == 2) cluster_sync();
}

// The persistent form (fused_v128_persistent.cu; the 128-channel form on at most
// kFusedPersistentMaxSequences sequences): one CTA per SM, each taking items in turn, and
// its roles run the blocks of all its items as one stream (g: the CTA's blocks, counted over its
// items), so that an item's first blocks are formed while the consumers finish the previous one's
// last, and a CTA's start (its barriers, the checks of cu_seqlens, the ranking) is paid once per
// SM, not once per item (about 9 us per round of CTAs: docs/performance.md, "The 128-channel form on persistent CTAs").
// The items are the sequences' heads, longest first up to kMaxOrderedSequences sequences
// (rank_sequences, once per CTA into ItemTable), else in index order;
// CTA b's first item is b, and each later one is claimed from a counter in the workspace (zeroed
// by the call's memset; within one round g_no_claims, where each claim finds none) by the
// producer's thread 0 as it starts the block kClaimAhead blocks before the end of the CTA's current item (or its first block, if shorter): a late claim, so that
// the SMs that free first take the next items, as the hardware's order does for one CTA per item.
// (Claims published a block later, or kept kClaimAhead blocks ahead, measured slower:
// docs/performance.md.) The claims go into a ring of kQueue entries, each completing its barrier
// once per use; every role reads an entry when it reaches that item. The ring cannot wrap onto an
// unread entry: the producer runs at most kSlots blocks ahead of the consumers (the slots), so it
// claims at most kSlots + 2 items past the consumers' (each item has at least one block); in the
// GVA pair the solvers may lag further (each CTA's solvers take every fourth block), so the ring
// has twice the entries that the one-CTA form needs.
constexpr int kQueue = 16;
constexpr int kClaimAhead = 3;
// Blocks from the end at which the next item is claimed: kClaimAhead where the CTA forms every
// block; one more in the GVA pair, where the claiming CTA forms every other one.
template <int kCtas>
constexpr int kClaimAt = kClaimAhead + kCtas - 1;
// kCtas: CTAs per item, 1, or the GVA pair's cluster of 2 (at most kFusedPairPersistentMaxSequences
// sequences, which leaves its larger Smem room; always ranked).
template <int kCtas>
struct ItemTable {
  static constexpr int kMaxSequences = int(kCtas == 1 ? kFusedPersistentMaxSequences : kFusedPairPersistentMaxSequences);
  uint64_t queued[kQueue];  // entry j % kQueue written (phase (j / kQueue) & 1)
  int pos[kQueue];          // the CTA's j-th item: its position in the list, -1 past the last
  // The sequences by rank (longest first up to kMaxOrderedSequences of them, else in index order):
  // index, first token, tokens (clamped bounds: seq_bounds).
  struct Ranked {
    int seq, bos, tokens;
  } ranked[kMaxSequences];
};
static_assert(kFusedPairPersistentMaxSequences <= kMaxOrderedSequences, "the GVA pair's sequences are always ranked");

// kCtas: CTAs per item, 1, or the GVA pair's cluster of 2.
// In the GVA pair the sizes come from the kernel's parameters (constant memory) each time, so that
// nothing of them stays live in the roles' registers (its solvers spilled with them held); the
// one-CTA form holds them (its 1-token items ran 2-3% slower reading them: docs/performance.md).
template <int kCtas>
struct Schedule {
  const FusedParams& p;
  ItemTable<kCtas>* tab;
  int rank;                        // this CTA's in the cluster (0 where kCtas = 1)
  int held_items, held_per_seq, held_group;  // kCtas = 1: N Hv, Hv, Hv / Hq
  __device__ __forceinline__ int per_seq() const {  // items per sequence
    if constexpr (kCtas == 1) return held_per_seq;
    else return p.r.value.Hv / kCtas;
  }
  __device__ __forceinline__ int items() const {  // <= 2^28
    if constexpr (kCtas == 1) return held_items;
    else return p.r.value.seq.N * per_seq();
  }
  __device__ __forceinline__ int group() const {  // value heads per key head
    if constexpr (kCtas == 1) return held_group;
    else return p.r.value.Hv / p.r.value.Hq;
  }
  // The CTA's j-th item's position, once claimed (-1: none). In the GVA pair the claims come from
  // the cluster's CTA 0 (claim): acquire at cluster scope.
  __device__ __forceinline__ int position(int j) const {
    if constexpr (kCtas == 2) mbarrier_wait_acquire_cluster(&tab->queued[j % kQueue], uint32_t(j / kQueue) & 1);
    else mbarrier_wait(&tab->queued[j % kQueue], uint32_t(j / kQueue) & 1);
    return tab->pos[j % kQueue];
  }
  // One thread (in the GVA pair, of the cluster's CTA 0): claims the CTA's (the cluster's) j-th
  // item; its position (-1: none left). Within one round the claims read g_no_claims and add 0, so
  // that every claim finds none left and the call needs no zeroed counter (launch_fused).
  __device__ __forceinline__ int claim(int j) const {
    const int c = int(gridDim.x) / kCtas + atomicAdd(p.claims, p.claim_step);
    const int pos = c < items() ? c : -1;
#ifdef GDN2_PHASE1_TIMELINE
    if (pos >= 0) mark_claimed(pos, global_timer_ns());
#endif
    tab->pos[j % kQueue] = pos;
    mbarrier_arrive(&tab->queued[j % kQueue]);
    if constexpr (kCtas == 2) {  // the same entry in the other CTA, released to it at cluster scope
      st_shared_cluster(peer_address(&tab->pos[j % kQueue], 1), pos);
      mbarrier_arrive_remote_release_cluster(peer_address(&tab->queued[j % kQueue], 1));
    }
    return pos;
  }
#ifdef GDN2_PHASE1_TIMELINE
  // The timeline's start of item pos (each CTA's of the cluster): when it was claimed, or for the
  // CTA's first item the CTA's start.
  __device__ __forceinline__ void mark_claimed(int pos, long long ns) const {
    const int r = pos / per_seq(), h0 = (pos - r * per_seq()) * kCtas;
    for (int k = 0; k < kCtas; ++k) GDN2_FUSED_MARK_ROW(tab->ranked[r].seq * p.r.value.Hv + h0 + k, kFusedStartNs, ns);
  }
#endif
  __device__ __forceinline__ int blocks(int pos) const { return (tab->ranked[pos / per_seq()].tokens + kBlk - 1) / kBlk; }
  // Position pos of the list: rank pos / per_seq, value head kCtas (pos % per_seq) + rank.
  __device__ __forceinline__ SliceItem item(int pos) const {
    const int r = pos / per_seq();
    SliceItem it;
    it.h = kCtas == 1 ? pos - r * per_seq() : (pos - r * per_seq()) * kCtas + rank;
    const typename ItemTable<kCtas>::Ranked q = tab->ranked[r];
    it.s = q.seq;
    it.hk = it.h / group();
    it.v0 = 0;
    it.sb = SeqBounds{q.bos, int64_t(q.bos) + q.tokens};
    return it;
  }
  // One thread: the raw inputs of block `over` counted from the first block of the CTA's j-th item
  // (in a later item where it is past that one's last), if there is such a block.
  template <class Stage>
  __device__ __forceinline__ void request(int j, int over, Stage& r, uint64_t* bar) const {
    for (;; ++j) {
      const int pos = position(j);
      if (pos < 0) return;
      const SliceItem it = item(pos);
      const Blocks bl = item_blocks(it);
      if (over < bl.count) {
        issue_raw(p, it, bl, over, r, bar);
        return;
      }
      over -= bl.count;
    }
  }
};

// Each role's walk over the CTA's items: body(it, bl, j, g0) per item, g0 its first block's g.
template <class Sched, class Body>
__device__ __forceinline__ void for_each_item(const Sched& sched, Body body) {
  int g0 = 0;
  for (int j = 0;; ++j) {
    const int pos = sched.position(j);
    if (pos < 0) return;
    const SliceItem it = sched.item(pos);
    const Blocks bl = item_blocks(it);
    body(it, bl, j, g0);
    g0 += bl.count;
  }
}

// The 128-channel form (kCtas = 1) or its GVA pair (kCtas = 2: a cluster per item, both CTAs
// walking the same items, the claims made by the cluster's CTA 0 and written into both).
template <int kConsumers, int kCtas>
__global__ void __launch_bounds__(kThreads, 1) fused_persistent_kernel(const __grid_constant__ FusedParams p) {
  static_assert(kConsumers == 2, "the 128-channel form");
  using R = Roles<kConsumers, kCtas>;
  extern __shared__ __align__(1024) float4 smem_raw[];
  Smem<kConsumers, kCtas>& sm = *reinterpret_cast<Smem<kConsumers, kCtas>*>(smem_raw);
  using Table = ItemTable<kCtas>;
  Table& tab = *reinterpret_cast<Table*>(reinterpret_cast<char*>(smem_raw) + sizeof(Smem<kConsumers, kCtas>));
  const StatePassParams& pv = p.r.value;
#ifdef GDN2_PHASE1_TIMELINE
  const long long start_ns = global_timer_ns();
#endif
  const bool choice = pv.seq.choice != kAlwaysRuns;  // as fused_kernel
  if (choice) allow_dependent_launch();
  if (p.r.zero_at_start != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *p.r.zero_at_start = 0;
  if (!path_is_chosen<kThreads>(pv.seq)) {  // both CTAs of a pair alike
    leave_unchosen_path();
    return;
  }
  if (choice) wait_for_prior_grid();
  const int rank = kCtas == 2 ? int(cluster_rank()) : 0;
  const int items = pv.seq.N * (pv.Hv / kCtas), unit = int(blockIdx.x) / kCtas, units = int(gridDim.x) / kCtas;
  if (cu_seqlens_fault<kThreads>(pv.seq)) {  // NaN in every output row and state, items in turn
    for (int pos = unit; pos < items; pos += units) {
      const SliceItem it = slice_item<R::kSlices>(pv, int64_t(pos) * kCtas + rank);
      fill_nan<R::kSliceV, kThreads>(pv, it.s, it.h, it.v0, state_offsets(pv, it.s, it.h, it.v0).ht);
    }
    return;
  }
  auto enter = [&](int t, int r) {  // sequence t at rank r
    const SeqBounds sb = seq_bounds(pv.seq, t);
    tab.ranked[r] = typename Table::Ranked{t, int(sb.bos), int(sb.eos - sb.bos)};
  };
  if (kCtas == 2 || pv.seq.N <= kMaxOrderedSequences) {
    rank_sequences<kThreads>(pv.seq, reinterpret_cast<int*>(&sm.stage[0][0][0]), enter);
  } else {  // past one thread per sequence: index order (a uniform branch)
    for (int t = threadIdx.x; t < pv.seq.N; t += kThreads) enter(t, t);
    __syncthreads();
  }
  const Schedule<kCtas> sched{p, &tab, rank, items, pv.Hv, pv.Hv / pv.Hq};
#ifdef GDN2_PHASE1_TIMELINE
  if (threadIdx.x == 0 && rank == 0) sched.mark_claimed(unit, start_ns);  // rows by item (GDN2_FUSED_ITEM_MARK)
#endif
  // Item 0 (the CTA's, or the cluster's, index), and item 1 where item 0 is too short for produce's
  // claim below (kClaimAt); then the first two own blocks' raw inputs.
  // In the GVA pair the first requests reach block 3 (CTA 1's second own block), so CTA 0 claims
  // items until they cover blocks 0-3 (`claimed`: the last item claimed so far, thread 0 of CTA 0).
  int claimed = 0;
  auto first_items = [&] {
    tab.pos[0] = unit;  // < items: the grid is at most one CTA (cluster) per item
    mbarrier_arrive(&tab.queued[0]);
    if constexpr (kCtas == 1) {
      if (item_blocks(sched.item(unit)).count <= kClaimAt<kCtas>) sched.claim(1);
    } else if (rank == 0) {
      for (int blocks = sched.blocks(unit); blocks < 2 * kCtas;) {
        const int pos = sched.claim(++claimed);
        if (pos < 0) break;
        blocks += sched.blocks(pos);
      }
    }
    for (int k = 0; k < 2; ++k) sched.request(0, rank + kCtas * k, sm.raw[k], &sm.raw_full[k]);
  };
  if (threadIdx.x == 0) {
    init_barriers(p, sm, rank);
    for (int k = 0; k < kQueue; ++k) mbarrier_init(&tab.queued[k], 1);
    fence_barrier_init();
    if constexpr (kCtas == 1) first_items();
  }
  if constexpr (kCtas == 2) {
    cluster_sync();  // both CTAs' barriers initialised before CTA 0's claims arrive on CTA 1's
    if (threadIdx.x == 0) first_items();
  } else {
    __syncthreads();
  }
  const int wg = warpgroup_index();
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R::kProducerRegs));
    for_each_item(sched, [&](const SliceItem& it, const Blocks& bl, int j, int g0) {
      // The next item's claim (the cluster's CTA 0's), kClaimAhead blocks before this one's end:
      // at the start of block count - kClaimAhead where the CTA forms every block, at its first
      // own block from count - kClaimAhead - 1 in the GVA pair (each CTA forms every other); at
      // the item's start where it is that short (item 0's: first_items above). Every item has a
      // block (cu_seqlens_fault: no empty sequence passes), so each claims its successor once;
      // an item of none would leave it unclaimed.
      if constexpr (kCtas == 1) {
        const int at = max(0, bl.count - kClaimAhead);
        produce(p, it, bl, sm, 0, g0, [&](int n) {
          if (threadIdx.x == 0 && n == at && (j > 0 || at > 0)) sched.claim(j + 1);
        });
      } else {
        // (Item j + 1 may be claimed already: first_items claims up to block 3.)
        const bool claims = threadIdx.x == 0 && rank == 0;
        auto claim_next = [&] {
          if (claims && j + 1 > claimed) {
            sched.claim(j + 1);
            claimed = j + 1;
          }
        };
        const bool early = bl.count <= kClaimAt<kCtas>;
        if (early) claim_next();
        const int at = bl.count - kClaimAt<kCtas>;
        bool done = early;
        produce(p, it, bl, sm, rank, g0, [&](int n) {
          if (!done && n >= at) {
            claim_next();
            done = true;
          }
        });
      }
    });
  } else if (wg >= R::kFirstConsumer) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R::kConsumerRegs));
    for_each_item(sched, [&](const SliceItem& it, const Blocks& bl, int, int g0) {
      consume<kConsumers, kCtas, true>(p, it, bl, sm, wg - R::kFirstConsumer, rank, g0);
    });
  } else {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R::kSolverRegs));
    for_each_item(sched, [&](const SliceItem& it, const Blocks& bl, int j, int g0) {
      solve(p, it, bl, sm, rank, g0, [&](int over, RawStage<kConsumers, kCtas>& r, uint64_t* bar) {
        sched.request(j + 1, over, r, bar);
      });
    });
  }
  // Neither CTA of a pair exits while the other may still arrive on its barriers or copy into it.
  if constexpr (kCtas == 2) cluster_sync();
}

}  // namespace gdn2::kernels::fused

namespace gdn2::kernels {

// The kernel of a form: one CTA per item, or the persistent form (one translation unit each).
template <int kConsumers, int kCtas, bool kPersistent>
struct FusedEntry {
  static constexpr auto kernel = fused::fused_kernel<kConsumers, kCtas>;
};
template <int kConsumers, int kCtas>
struct FusedEntry<kConsumers, kCtas, true> {
  static constexpr auto kernel = fused::fused_persistent_kernel<kConsumers, kCtas>;
};

// The persistent forms' claims within one round, where every CTA (cluster) has its own item: a
// word that no claim changes (each adds 0), past any item count (at most 2^28), so that each
// claim finds none left, with no memset node in the call (src/launch.cu, fused_claims).
static __device__ int g_no_claims = 1 << 30;

// One CTA per (sequence, value head, 64 kConsumers value channels), 512 threads, dynamic shared
// memory; no chunk factors. The TMA descriptors of the raw inputs are encoded here, per call.
template <int kConsumers, int kCtas, bool kPersistent = false>
int launch_fused(const RecurrentParams& r, Stream stream) {
  using namespace fused;
  using R = Roles<kConsumers, kCtas>;
  constexpr auto kernel = FusedEntry<kConsumers, kCtas, kPersistent>::kernel;
  constexpr size_t kSmem = sizeof(Smem<kConsumers, kCtas>) + (kPersistent ? sizeof(ItemTable<kCtas>) : 0);
  static_assert(kSmem <= kMaxDynamicSmem, "the form's shared memory must fit an SM's (sm_90: 227 KB a CTA)");
  const int smem = int(kSmem);
  static std::atomic<uint64_t> smem_set{0};
  int err = allow_dynamic_smem(kernel, smem, smem_set);
  if (err != 0) return err;
  FusedParams p;
  p.r = r;
  const StatePassParams& v = r.value;
  const cuuint64_t T = cuuint64_t(v.seq.T), key_cols = cuuint64_t(v.Hq) * kK, value_cols = cuuint64_t(v.Hv) * kV;
  const cuuint64_t key_dims[2] = {key_cols, T}, value_dims[2] = {value_cols, T};
  const cuuint64_t key16[1] = {key_cols * 2}, key32[1] = {key_cols * 4}, value16[1] = {value_cols * 2};
  const cuuint32_t key_box[2] = {kK, kBlk};
  // v, w: whole heads (issue_raw); in the GVA pair rows of kVwLd channels (produce, vw_of)
  const cuuint32_t value_box[2] = {R::kGvaPair ? cuuint32_t(kVwLd) : cuuint32_t(R::kFormV), kBlk};
  constexpr auto kBf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  constexpr auto kNone = CU_TENSOR_MAP_SWIZZLE_NONE;
  err = encode_tiled_map(&p.q_map, kBf16, 2, r.q, key_dims, key16, key_box, kNone);
  if (err == 0) err = encode_tiled_map(&p.k_map, kBf16, 2, r.k, key_dims, key16, key_box, kNone);
  if (err == 0) err = encode_tiled_map(&p.b_map, kBf16, 2, r.b, key_dims, key16, key_box, kNone);
  if (err == 0) err = encode_tiled_map(&p.g_map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, r.g, key_dims, key32, key_box, kNone);
  if (err == 0) err = encode_tiled_map(&p.r.value.v_map, kBf16, 2, v.v, value_dims, value16, value_box, kNone);
  if (err == 0) err = encode_tiled_map(&p.r.value.w_map, kBf16, 2, v.w, value_dims, value16, value_box, kNone);
  if (err != 0) return err;
  const int64_t items = int64_t(v.seq.N) * v.Hv * R::kSlices;
  // The pair form behind the previous grid in the stream always (Roles::kEarlyStart), the other
  // forms where they are the longer of two paths under kAuto's choice on the device.
  const bool after_prior = R::kEarlyStart || v.seq.choice == kRunsIfOneAsLong;
  if constexpr (kPersistent) {  // one CTA (GVA pair: cluster) per SM (pair), at most one per item
    const int64_t units = std::min<int64_t>(items / R::kCtas, r.sms / R::kCtas);
    // Past one round the items are claimed from a counter that the call zeroed (src/launch.cu,
    // fused_claims); within one round from g_no_claims, adding 0 (Schedule::claim).
    p.claims = r.fused_claims;
    if (items / R::kCtas <= units) {
      // The symbol's address in this translation unit's module on the current device (each device
      // has its own), looked up once per device up to 64 of them.
      static std::atomic<int*> no_claims[64];
      int device = 0;
      err = int(cudaGetDevice(&device));
      if (err != 0) return err;
      int* word = device < 64 ? no_claims[device].load(std::memory_order_relaxed) : nullptr;
      if (word == nullptr) {
        err = int(cudaGetSymbolAddress(reinterpret_cast<void**>(&word), g_no_claims));
        if (err != 0) return err;
        if (device < 64) no_claims[device].store(word, std::memory_order_relaxed);
      }
      p.claims = word, p.claim_step = 0;
    }
    if (p.claims == nullptr) return int(cudaErrorInvalidValue);  // past one round the call zeroes it
    return launch_ex(kernel, dim3(unsigned(units * R::kCtas)), kThreads, smem, stream, after_prior, R::kCtas, p);
  }
  // One CTA per item; past kMaxGrid items (N Hv kSlices > 2^30), several launches of up to kMaxGrid.
  constexpr int64_t kMaxGrid = int64_t(1) << 30;
  for (p.item_base = 0; p.item_base < items; p.item_base += kMaxGrid) {
    const int64_t grid = std::min(kMaxGrid, items - p.item_base);
    // The pair forms' CTAs in clusters of two.
    err = launch_ex(kernel, dim3(unsigned(grid)), kThreads, smem, stream, after_prior, R::kCtas, p);
    if (err != 0) return err;
  }
  return 0;
}

}  // namespace gdn2::kernels
