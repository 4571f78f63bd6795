// Internal: the plain parameter structs passed by value to the kernels, and their launchers.
// No CUDA or CuTe headers: src/launch.cu fills these from gdn2::ForwardArgs.
#pragma once

#include <cstdint>

#include "gdn2/gdn2.h"

namespace gdn2::kernels {

// kAuto's choice on the device (docs/design.md, "Three algorithms"): without the max_seqlen hint,
// where the sizes leave two paths possible, the host launches both; each kernel then runs only if
// its path is the one for the longest sequence's length L, read from cu_seqlens (offsets clamped
// as everywhere): the shorter path where L < choice_length, the other where L >= choice_length.
// Where the chunked path is one of the two, phase 1 decides for both of its kernels: where it does
// not run, its first CTA writes kPhase1Skipped as fault word 0, which the state pass reads.
// Under a choice the kernels after the call's first are launched behind the previous one
// (launch_after_prior_grid), and the fused pair form's kernel always is (enter_after_prior_grid):
// every kernel lets the next one launch at its start. A kernel that runs
// waits for the previous one right after its decision; in one that does not, only the first CTA
// waits and the others leave at once (leave_unchosen_path), so that the CTAs of the path that does
// not run start and leave in the tail of the one that runs, and the call still completes with its
// last kernel. The first kernel zeroes the chunked path's work counter
// (RecurrentParams::zero_at_start): no memset node.
enum DeviceChoice : int8_t { kAlwaysRuns = 0, kRunsIfAllShorter = 1, kRunsIfOneAsLong = 2 };
inline constexpr int kPhase1Skipped = 2;

// Packed-sequence metadata as the kernels read it (cu_seqlens stays on the device). 32 bytes.
struct Sequences {
  const void* cu_seqlens = nullptr;
  int64_t T = 0;
  int64_t choice_length = 0;  // DeviceChoice's threshold
  int N = 0;
  bool cu_int64 = false;
  DeviceChoice choice = kAlwaysRuns;
};

// The key-side factors of one (chunk slot, key head): one contiguous block of fp32 values rounded
// to TF32, in the order phase 2 consumes them, so that each group is one bulk copy (or a few). The
// matrices are TF32 B operands in the K-major layout below, their k index permuted (factor_offset);
// rows past the chunk's end hold the factors of zero-padded tokens (zero rows, identity rows of T).
// gamma is in channel order. Block of (slot, hk): hk * slots + slot.
//
// T and M are lower triangular and their 16 KB slots hold one of two formats, chosen per launch
// (ChunkFactorsParams::packed_triangles): the full [64][64] layout (the 32-channel state pass
// copies each slot whole), or packed: of each group of 8 rows only the core matrices up to the
// diagonal, row group after row group from the slot's start (triangle_group_*, 2304 of the 4096
// values), which the register-state passes copy group by group into the full layout in shared
// memory, reading 11% fewer bytes of the block.
namespace factor_block {
inline constexpr int kKb = 0;                                  // Kb     [64][K]
inline constexpr int kQg = kKb + kChunk * kHeadDimK;           // Qg     [64][K]
inline constexpr int kT = kQg + kChunk * kHeadDimK;            // T      [64][64]
inline constexpr int kM = kT + kChunk * kChunk;                // M      [64][64]
inline constexpr int kKendT = kM + kChunk * kChunk;            // Kend^T [K][64]
inline constexpr int kGamma = kKendT + kHeadDimK * kChunk;     // gamma  [K]
inline constexpr int kFloats = kGamma + kHeadDimK;
// The packed format: row group rg (rows 8 rg .. 8 rg + 7) keeps its first 2 (rg + 1) core matrices
// (the columns k < 8 (rg + 1)), contiguous as in the full layout, at this offset from the slot's start.
inline constexpr int kRowGroups = kChunk / 8;
constexpr int triangle_group_offset(int rg) { return 32 * rg * (rg + 1); }
constexpr int triangle_group_floats(int rg) { return 64 * (rg + 1); }
inline constexpr int kTriangleFloats = triangle_group_offset(kRowGroups);  // 2304 of 4096
}  // namespace factor_block

// The layout of every tensor-core operand, in the factor block and in phase 2's shared memory: K-major,
// wgmma's canonical layout without swizzle. Core matrices of 8 rows x 4 TF32 values (one 16-byte row
// each, 128 contiguous bytes), the core matrices of an 8-row group consecutive along K, then the next
// group. Element (row, k) of a [rows][K] operand is at kmajor_offset(row, k, K) floats; a wgmma
// descriptor of it has LBO = kLboBytes and SBO = sbo_bytes(K), and k-step s starts s * kStepBytes in.
namespace kmajor {
inline constexpr int kLboBytes = 128;                     // next core matrix along K
constexpr int sbo_bytes(int K) { return 32 * K; }         // next 8-row group
inline constexpr int kStepBytes = 256;                    // next k-step of 8 values (two core matrices)
}  // namespace kmajor
constexpr int kmajor_offset(int row, int k, int K) {
  return (row >> 3) * (8 * K) + (k >> 2) * 32 + (row & 7) * 4 + (k & 3);
}

// K-major with the 128-byte swizzle (wgmma's layout type 1), for an operand whose writers store
// one row at a time: K in blocks of 32 TF32 values, each block [rows][32] (128 bytes a row), 16-byte
// chunk c of row r stored at chunk c ^ (r % 8), so that a row's 32 values and an 8-row column of
// chunks each touch all 32 banks. Element (row, k) of a [rows][K] operand is at
// sw128::offset(row, k, rows) floats; it must start on a 1,024-byte boundary (the swizzle reads
// the address), its descriptor has SBO = kSboBytes (the next 8-row group) and k-step s starts
// step_bytes(s, rows) in.
namespace sw128 {
constexpr int offset(int row, int k, int rows) {
  return (k >> 5) * (rows * 32) + row * 32 + ((((k >> 2) & 7) ^ (row & 7)) << 2) + (k & 3);
}
inline constexpr int kSboBytes = 1024;
constexpr int step_bytes(int kstep, int rows) { return (kstep >> 2) * (rows * 128) + (kstep & 3) * 32; }
}  // namespace sw128

// Phase 2 takes the A operand of every product from an accumulator in registers (state_pass.cu). A
// thread holds accumulator columns 2t and 2t + 1 of each n8 tile (t = lane % 4) but feeds A columns
// t and t + 4 of each k-step of 8, so the product's reduction index k sits at position
// k_position(k) of its k-step: 2t + e -> t + 4e. The B operands (the factors) are stored with the
// same permutation; the product is unchanged because both sides use it.
constexpr int k_position(int k) { return (k & ~7) | ((k & 1) << 2) | ((k & 7) >> 1); }
// The inverse: the k index stored at position p.
constexpr int k_at_position(int p) { return (p & ~7) | ((p & 3) << 1) | ((p >> 2) & 1); }
// Element (row, k) of a factor: K-major with the k index permuted.
constexpr int factor_offset(int row, int k, int K) { return kmajor_offset(row, k_position(k), K); }
// The 32-channel pass stores its accumulators R, U and S as B operands (state_pass_ss.cuh,
// store_acc_as_b): lane (g, t) of warp w holds element (16 w + g + 8 h, 8 j + 2 t + e) of an
// m64 x 32 accumulator, which becomes element (n, k) = (8 j + 2 t + e, row0 + 16 w + g + 8 h) of
// the B operand [32][K]. Rows g and g + 1 sit at k positions p and p + 4, one core matrix (32
// floats, the same bank) apart, and columns 2t, 2t + 1 four banks apart: so in store i (0, 1) of
// pair (j, h) a lane stores column e = i ^ (g & 1), and each store's 32 lanes hit 32 banks.
constexpr int acc_store_column(int lane, int i) { return i ^ ((lane >> 2) & 1); }
// k = row0 + 16 w + g: the thread's first accumulator row.
constexpr int acc_store_offset(int lane, int k, int j, int h, int i, int K) {
  // factor_offset of n = 8 j + 2 t + e: column e is 4 floats past column 0 (n & 7 < 8)
  return factor_offset(8 * j + 2 * (lane & 3), k + 8 * h, K) + 4 * acc_store_column(lane, i);
}
// A-fragment register r (a0..a3: (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)) of k-step s is
// accumulator element a_from_acc(s, r) of the same thread (acc[4 j + 2 h + e] = (g + 8 h, 8 j + 2 t + e)).
constexpr int a_from_acc(int s, int r) { return 4 * s + ((r & 1) << 1) + (r >> 1); }

// The [64 tokens][64 channels] bf16 tiles of the register-state pass (v, w and the output of one
// consumer warpgroup, state_pass_rs.cuh): 128-byte token rows in the TMA's 128-byte swizzle, in which
// 16-byte part j of row r lands at part j ^ (r % 8) within each 1024-byte group of 8 rows (the tile
// is 1024-byte aligned). Element (tok, ch) is at swizzled_tile_offset(tok, ch) bf16 values.
inline constexpr int kTileChannels = 64;
constexpr int swizzled_tile_offset(int tok, int ch) {
  return tok * kTileChannels + ((((ch >> 3) ^ tok) & 7) << 3) + (ch & 7);
}

// Phase 1's grid: at most one CTA per SM and never more than kMaxPhase1Ctas; each CTA writes one
// fault word (ChunkFactorsParams::fault_words), which every phase-2 CTA reads with one thread each.
inline constexpr int kMaxPhase1Ctas = 256;
inline int64_t phase1_ctas(int64_t items, int64_t sms) {
  const int64_t ctas = sms < kMaxPhase1Ctas ? sms : kMaxPhase1Ctas;
  return items < ctas ? items : ctas;
}

// Phase 1: key-side factors of every (chunk slot, key head) item. Grid: phase1_ctas(items, ctas)
// persistent CTAs; CTA b takes item b first, then the next free item from work_counter, or without
// a counter items b + grid, b + 2 grid, ... (a static schedule, which needs nothing zeroed); on the
// static schedule only CTAs below steady_ctas go on after their first item: the others leave their
// SMs to a state pass launched behind this grid.
struct ChunkFactorsParams {
  Sequences seq;
  int Hq = 0;
  int ctas = 0;  // the grid's upper bound: the number of SMs (one CTA fits per SM)
  int64_t slots = 0;
  const uint16_t* q = nullptr;  // bf16 [T, Hq, K]
  const uint16_t* k = nullptr;
  const uint16_t* b = nullptr;
  const float* g = nullptr;     // fp32 [T, Hq, K]
  float* factors = nullptr;     // [Hq, slots] factor blocks
  bool packed_triangles = false;  // T and M in the packed format (factor_block): for the register-state passes
  // The static schedule: every CTA takes its first item (blockIdx.x), then only CTAs below
  // steady_ctas go on, round-robin over the items left; steady_ctas = the grid: plain round-robin.
  // Here, in the padding after packed_triangles: a larger parameter block changed phase 1's register
  // allocation (spills).
  int steady_ctas = 0;
  // One word per CTA, always written: 1 if an offset of cu_seqlens that the CTA checked is
  // inconsistent, else 0 (not zeroed before the launch).
  int* fault_words = nullptr;
  uint64_t* work_counter = nullptr;  // null: the static schedule; else zeroed before the launch
  // [Hq][slots] words, zeroed before the launch, or null: once an item's factor block is written,
  // its word becomes 1 (a release store), so that a state pass running at the same time may read it.
  int* ready = nullptr;
  // [N] or null: the sequences longest first (by chunk count, then by index), for a state pass of
  // several waves launched after this grid (StatePassParams::order). Any contents before the launch.
  int* order = nullptr;
};

// A TMA descriptor (CUtensorMap) as plain bytes: this header includes no CUDA header.
struct alignas(128) TensorMap {
  uint64_t opaque[16];
};

// Phase 2: the sequential pass over chunks, one CTA per (sequence, value head, V slice).
struct StatePassParams {
  Sequences seq;
  int Hq = 0, Hv = 0;
  int64_t slots = 0;
  float scale = 0.f;
  const uint16_t* v = nullptr;        // bf16 [T, Hv, V]
  const uint16_t* w = nullptr;
  // The states, [slots][Hv][V][K] or null, fp32 or bf16 (the *_bf16 flags), read and written only
  // through load_state / store_state (state_pass_common.cuh); the state itself is fp32 throughout.
  const void* initial_state = nullptr;
  uint16_t* out = nullptr;            // bf16 [T, Hv, V]
  void* final_state = nullptr;
  bool initial_bf16 = false, final_bf16 = false;
  // Where sequence s's state lies in each state tensor (state_offsets, state_pass_common.cuh): slot
  // s, or slot index[s] where the caller gave state indices (int32 [N]; negative: no state); slots
  // `stride` elements apart, `slots` of them (an index at or past it: the sequence's rows become NaN).
  const int* initial_index = nullptr;
  const int* final_index = nullptr;
  int64_t initial_slots = 0, final_slots = 0;
  int64_t initial_stride = 0, final_stride = 0;
  const float* factors = nullptr;     // [Hq, slots] factor blocks
  const int* fault_words = nullptr;  // phase 1's verdicts on cu_seqlens, one per phase-1 CTA
  int fault_count = 0;               // phase 1's grid size (<= kMaxPhase1Ctas)
  const int* ready = nullptr;        // ChunkFactorsParams::ready (the 32-channel pass only)
  // ChunkFactorsParams::order, or null (then sequence order): the register-state passes start the
  // CTAs of the sequences with the most chunks first (state_pass_rs.cuh, slice_of_cta).
  const int* order = nullptr;
  // v and w as 2-D tensors [T][Hv V] for TMA copies of 64 tokens x 64 channels with the 128-byte
  // swizzle (state_pass_rs.cuh; filled by the launch of those kernels only).
  TensorMap v_map, w_map;
};

// The recurrent path (recurrent.cu): the value side, outputs and sequences as for phase 2 (its
// factor-block, fault-word, ready-word and order fields and the tensor maps are not used), and the
// raw key-side inputs.
struct RecurrentParams {
  StatePassParams value;
  int64_t sms = 0;              // the device's multiprocessor count (the grid's bound)
  const uint16_t* q = nullptr;  // bf16 [T, Hq, K]
  const uint16_t* k = nullptr;
  const uint16_t* b = nullptr;
  const float* g = nullptr;     // fp32 [T, Hq, K]
  // Under kAuto's choice on the device with the chunked path the longer one: phase 1's work counter,
  // set to 0 by this kernel (the call's first) before anything else, in place of a memset.
  uint64_t* zero_at_start = nullptr;
  // The fused path's persistent form (fused_persistent) past one round of its CTAs (clusters): its
  // counter of claimed items, a word of the workspace's flags that the call zeroes (a memset node
  // before its first kernel); null within one round (src/launch.cu, fused_claims).
  int* fused_claims = nullptr;
};

// Value checks for validate=True: sets bits of *flags (see ValueFlag).
struct ValidateParams {
  Sequences seq;
  int64_t key_elems = 0, value_elems = 0;  // T*Hq*K and T*Hv*V
  const float* g = nullptr;
  const uint16_t* b = nullptr;
  const uint16_t* w = nullptr;
  // State indices (int32 [N] or null) and their pools' slot counts (0: no such state).
  const int* initial_index = nullptr;
  const int* final_index = nullptr;
  int64_t initial_slots = 0, final_slots = 0;
  bool in_place = false;  // final_state is initial_state: no sequence may write a slot another reads
  int* flags = nullptr;
};
enum ValueFlag : int {
  kCuFirstNotZero = 1, kCuNotIncreasing = 2, kCuLastNotT = 4,
  kGNotFinite = 8, kGPositive = 16, kBNotFinite = 32, kWNotFinite = 64,
  kInitialIndexPastPool = 128, kFinalIndexPastPool = 256,
  kFinalSlotRepeated = 512, kSlotWrittenAndReadByAnother = 1024,
};

// Launchers (one translation unit each). They return the launch's cudaError_t as an int.
int launch_chunk_factors(const ChunkFactorsParams& p, Stream stream);
// Phase 2: 32-channel slices, every operand in shared memory (state_pass_v32.cu), or the state in
// registers as the A operand (state_pass_rs.cuh) with 64 (state_pass_v64.cu) or 128 value channels
// per CTA (state_pass_v128.cu).
// The widest value slices whose CTAs (one per SM) still fill at most one wave, else 128 (src/launch.cu).
inline constexpr int pass_width(int64_t heads, int64_t sms) {
  return heads * (kHeadDimV / 32) <= sms ? 32 : heads * (kHeadDimV / 64) <= sms ? 64 : 128;
}
int launch_state_pass_v32(const StatePassParams& p, Stream stream);
int launch_state_pass_v64(const StatePassParams& p, Stream stream);
int launch_state_pass_v128(const StatePassParams& p, Stream stream);
// The recurrent path: one launch, no chunk factors (recurrent.cu). Its work items are (sequence, value
// head, slice of V / kRecurrentSlices channels); kRecurrentCtasPerSm of its CTAs fit on an SM.
inline constexpr int kRecurrentSlices = 8, kRecurrentCtasPerSm = 2;
int launch_recurrent(const RecurrentParams& p, Stream stream);
// The fused path: 16-token blocks, key side and value side in one kernel (fused.cuh); the same
// parameters as the recurrent path. Its CTAs are (sequence, value head, slice of V / fused_slices
// channels), one per SM at a time: two 64-channel slices per head (fused_v64.cu, a cluster of two
// CTAs that each form every other block's key side) where they fit in one wave, else the whole
// head (fused_v128.cu), which forms each block's key side once for all its channels and halves the
// waves; there, where each key head has an even number of value heads and the sequences have 128
// tokens on average, the two value heads of a key head as a cluster of two CTAs that each form
// every other block's key side (fused_v128_pair.cu). On shorter sequences the cluster's start costs
// more than its blocks gain (an H100: 32 to 128 sequences of 1 to 8 tokens 22-33% slower, 128 of
// 1 to 256 tokens 1.5% faster, 64 of 1 to 512 8% faster; docs/performance.md, "The GVA pair in the
// 128-channel form", step 8).
inline constexpr int fused_slices(int64_t heads, int64_t sms) { return 2 * heads <= sms ? 2 : 1; }
inline constexpr int64_t kGvaPairMinMeanTokens = 128;
inline constexpr bool fused_gva_pair(int64_t heads, int64_t sms, int64_t hq, int64_t hv, int64_t tokens,
                                     int64_t sequences) {
  return fused_slices(heads, sms) == 1 && (hv / hq) % 2 == 0 && tokens >= kGvaPairMinMeanTokens * sequences;
}
// Wherever the 128-channel form runs (MHA, or GVA without the pair) on at most
// kFusedPersistentMaxSequences sequences (kAuto's bound for the fused path), that form's
// persistent kernel (fused_v128_persistent.cu): one CTA per SM taking the items in turn (the
// sequences longest first up to 256 of them, else in index order), each past the first round
// claimed from a counter in the workspace (RecurrentParams::fused_claims, zeroed by a memset).
// Within one round too, where each CTA takes one item: the same arithmetic as the one-CTA-per-item
// kernel (fused_v128.cu), 4-17% faster on an H100 (its state by quads, and a different schedule of
// the roles' loops; docs/performance.md, "The persistent forms within one round"). The one-item
// kernels remain past those sequence bounds.
inline constexpr int64_t kFusedPersistentMaxSequences = 4096;
inline constexpr bool fused_persistent(int64_t heads, int64_t sms, int64_t hq, int64_t hv, int64_t tokens,
                                       int64_t sequences) {
  return fused_slices(heads, sms) == 1 && !fused_gva_pair(heads, sms, hq, hv, tokens, sequences) &&
         sequences <= kFusedPersistentMaxSequences;
}
int launch_fused_v64(const RecurrentParams& p, Stream stream);
int launch_fused_v128(const RecurrentParams& p, Stream stream);
int launch_fused_v128_pair(const RecurrentParams& p, Stream stream);
int launch_fused_v128_persistent(const RecurrentParams& p, Stream stream);
// The GVA pair on at most kFusedPairPersistentMaxSequences sequences (its table of them, 12 B each,
// beside its larger shared memory; past that, 32K tokens or more, one cluster per item, in
// fused_v128_pair.cu): its persistent kernel (fused_v128_pair_persistent.cu), a cluster per two SMs
// taking the (sequence, pair of value heads) items in turn, the claims made by each cluster's CTA 0;
// within one round of its clusters too, as the 128-channel form above.
inline constexpr int64_t kFusedPairPersistentMaxSequences = 256;
inline constexpr bool fused_gva_pair_persistent(int64_t heads, int64_t sms, int64_t hq, int64_t hv, int64_t tokens,
                                                int64_t sequences) {
  return fused_gva_pair(heads, sms, hq, hv, tokens, sequences) && sequences <= kFusedPairPersistentMaxSequences;
}
int launch_fused_v128_pair_persistent(const RecurrentParams& p, Stream stream);
int launch_validate_values(const ValidateParams& p, Stream stream);

#ifdef GDN2_PHASE1_TIMELINE
// The phase-1 timeline of the last launch (bench/phase1_timeline.cu): SM clock when each of the
// first kTimelineCtas CTAs starts and after each stage of its every item, and how many items each
// CTA took; the same for the solver warpgroup (its items are the ones handed to it).
inline constexpr int kTimelineCtas = 132, kTimelineItems = 64, kTimelineMarks = 7, kSolverMarks = 5;
int read_phase1_timeline(long long* starts /* [kTimelineCtas] */,
                         long long* marks /* [kTimelineCtas][kTimelineItems][kTimelineMarks] */,
                         int* items /* [kTimelineCtas] */,
                         long long* solver_marks /* [kTimelineCtas][kTimelineItems][kSolverMarks] */,
                         int* solver_items /* [kTimelineCtas] */);
// Zeroes the per-CTA item counts, so that a launch with fewer CTAs than the one before leaves no
// stale counts behind (the CTAs it does not run record nothing).
int reset_phase1_timeline();
// The global timer (ns) when each of phase 1's first kTimelineCtas CTAs ended its last item.
int read_phase1_end_ns(long long* end_ns /* [kTimelineCtas] */);

// The 32-channel state pass's timeline (state_pass_ss.cuh), per CTA (blockIdx.y * gridDim.x +
// blockIdx.x < kPassTimelineCtas) and chunk: the SM clock at the chunk's start (after its first
// CTA barrier), when its RU warpgroup has stored U, and after its second CTA barrier; the cycles
// the copies' issuer spent waiting for the next chunk's factor block to be published (0 where the
// pass does not run alongside phase 1 or the block was known ready); the SM clock when the Out
// warpgroup's Qg S is done, when the first and the second state warpgroup have stored S, and when
// the Out warpgroup has issued the chunk's output stores (marks 4 to 7); when RU's wait for Kb
// ends, its Kb S is done, its wait for T ends, its T R is done (marks 8 to 11); when the first
// state warpgroup's wait for M, Kend^T, gamma ends and its Kend^T U is done (12, 13), and the Out
// warpgroup's (14, 15: the wait, then M U done); when RU reaches its wait for Kb (16), when the
// first and the second state warpgroup reach their wait for M, Kend^T, gamma (17, 18) and when the
// second one's Kend^T U is done (19); and the global timer (ns) at the chunk's start.
// `chunks`: the chunks each CTA ran (0 for a CTA that did not run).
inline constexpr int kPassTimelineCtas = 64, kPassTimelineChunks = 512, kPassMarks = 20;
int read_pass_timeline(long long* marks /* [kPassTimelineCtas][kPassTimelineChunks][kPassMarks] */,
                       long long* start_ns /* [kPassTimelineCtas][kPassTimelineChunks] */,
                       int* chunks /* [kPassTimelineCtas] */);
int reset_pass_timeline();

// The fused path's timeline per CTA (fused.cuh), for the first kFusedTimelineCtas CTAs of the last
// launch of each form (v64: one consumer warpgroup, v128: two): the fields of FusedTimelineField,
// zero for a CTA that did not run (or took the fault path). In the persistent forms a row is an
// item (sequence s, value head h: row s Hv + h), its start the time it was claimed (the CTA's start
// for the CTA's first), its SM the one its CTA ran on; kFusedIssuedNs is not recorded there.
inline constexpr int kFusedTimelineCtas = 4096;
enum FusedTimelineField : int {
  kFusedSm,          // the SM it ran on
  kFusedStartNs,     // global timer at its start
  kFusedIssuedNs,    // when its first blocks' raw inputs were requested (the checks of cu_seqlens done)
  kFusedRawNs,       // when the first block's raw inputs had landed (the producer's wait)
  kFusedFormedNs,    // when the producer had formed the first block's staging tiles
  kFusedSolvedNs,    // when the first block's solver had formed A, P and T
  kFusedFirstNs,     // when its first consumer warpgroup began the first block's products
  kFusedEndNs,       // when that warpgroup ended (its last block and the final state stored)
  kFusedSequence,    // its sequence
  kFusedBlocks,      // its 16-token blocks
  kFusedExactBlocks, // of those, the ones that took the exact path for A and P
  kFusedTimelineFields
};
// Each form's timeline (its translation unit's): read into `fields` ([kFusedTimelineCtas]
// [kFusedTimelineFields]), or reset where `fields` is null.
int fused_timeline_v64(long long* fields);
int fused_timeline_v128(long long* fields);
int fused_timeline_v128_pair(long long* fields);
int fused_timeline_v128_persistent(long long* fields);
int fused_timeline_v128_pair_persistent(long long* fields);
#endif

}  // namespace gdn2::kernels
