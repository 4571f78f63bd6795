"""Adds SM-clock marks (FUSED_PROBE) to src/kernels/fused.cuh of branch fused-template (fh2: one CTA
per item): 3 roles x 64 blocks x 10 marks of CTA 0 in static shared memory, dumped into
final_state[0..1920) at the end (tools_tmp/scripts/fused_timeline6.py reads them). Stamping
threads: producer thread 0, consumer 0's thread 0, each solver's first thread. Block index n.
The marks (as apply_probe_fh.py's for fh3):
  producer 0 before its raw/stage waits, 1 after, 2 before the vote, 3 after formed, 4 after the
    empty wait, 5 after full;
  solver 0 before formed, 1 after, 2 after A/P, 3 after its part of the inverse, 4 after full;
  consumer 0 at the block's start, 1 after full, 2 after the first product, 3 after U, 4 after empty."""
import re, sys
path = sys.argv[1] if len(sys.argv) > 1 else "src/kernels/fused.cuh"
s = open(path).read()
def sub(old, new, count=1):
    global s
    n = s.count(old)
    assert n == count, (old, n)
    s = s.replace(old, new)
sub("#include <algorithm>\n", "#define FUSED_PROBE\n#include <algorithm>\n")
sub("__device__ __forceinline__ float bf(uint16_t x) { return __uint_as_float(uint32_t(x) << 16); }\n",
    "__device__ __forceinline__ float bf(uint16_t x) { return __uint_as_float(uint32_t(x) << 16); }\n"
    "static __shared__ long long g_stamp[3][64][10];  // PROBE\n"
    "#define STAMP(role, m) if (kStamper && n < 64) g_stamp[role][n][m] = clock64()  // PROBE\n")
# solver
sub("  const int c = c0 % R::kSolverThreads, warp = c / 32, lane = c % 32;\n",
    "  const int c = c0 % R::kSolverThreads, warp = c / 32, lane = c % 32;\n  const bool kStamper = c == 0;  // PROBE\n")
sub("    mbarrier_wait(&sm.formed[n & 1], uint32_t(n >> 1) & 1);\n    const bool fast = sm.fast[n & 1];\n",
    "    STAMP(2, 0);\n    mbarrier_wait(&sm.formed[n & 1], uint32_t(n >> 1) & 1);\n    STAMP(2, 1);\n    const bool fast = sm.fast[n & 1];\n")
sub("      if (warp < 2) {\n        mbarrier_arrive(&sm.stage_empty[n & 1]);\n",
    "      STAMP(2, 2);\n      if (warp < 2) {\n        mbarrier_arrive(&sm.stage_empty[n & 1]);\n")
sub("        invert(sm.a[w], sm.t22[w][(n / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);\n      } else {",
    "        invert(sm.a[w], sm.t22[w][(n / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);\n        STAMP(2, 3);\n      } else {")
sub("      wait_slot();\n      copy_kq(stage, slot, c);\n",
    "      STAMP(2, 2);\n      wait_slot();\n      copy_kq(stage, slot, c);\n")
sub("      __syncwarp();  // the warp's A before its part of the inverse reads it\n      invert(sm.a[w], sm.t22[w][(n / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);\n    }\n",
    "      __syncwarp();  // the warp's A before its part of the inverse reads it\n      invert(sm.a[w], sm.t22[w][(n / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);\n      STAMP(2, 3);\n    }\n")
end = "    fence_proxy_async();  // this thread's writes of the slot before the products read them\n    mbarrier_arrive(&sm.full[n & 1]);\n  }\n}\n"
assert s.count(end) == 2, s.count(end)
i = s.index(end)  # the solver's, then the producer's
s = s[:i] + end.replace("  }\n}\n", "    STAMP(2, 4);\n  }\n}\n") + s[i + len(end):]
j = s.index(end)
s = s[:j] + end.replace("  }\n}\n", "    STAMP(0, 5);\n  }\n}\n") + s[j + len(end):]
# producer
sub("  const int slot_row = k_at_position(c);\n", "  const int slot_row = k_at_position(c);\n  const bool kStamper = c == 0;  // PROBE\n")
sub("    mbarrier_wait(&sm.raw_full[n % kRawStages], uint32_t(n / kRawStages) & 1);\n    if (n >= 2) mbarrier_wait(&sm.stage_empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n",
    "    STAMP(0, 0);\n    mbarrier_wait(&sm.raw_full[n % kRawStages], uint32_t(n / kRawStages) & 1);\n    if (n >= 2) mbarrier_wait(&sm.stage_empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n    STAMP(0, 1);\n")
sub("    const bool fast = producer_sync_and(ok);\n", "    STAMP(0, 2);\n    const bool fast = producer_sync_and(ok);\n")
sub("    mbarrier_arrive(&sm.formed[n & 1]);\n    if (n >= 2) mbarrier_wait(&sm.empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n",
    "    mbarrier_arrive(&sm.formed[n & 1]);\n    STAMP(0, 3);\n    if (n >= 2) mbarrier_wait(&sm.empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n    STAMP(0, 4);\n")
# consumer
sub("  float st[kK / 2];  // st[4 j", "  const bool kStamper = ci == 0 && tid == 0;  // PROBE\n  float st[kK / 2];  // st[4 j")
sub("    Slot<kConsumers>& slot = sm.slot[n & 1];\n    const int len = bl.len(n);\n    // -S^T",
    "    STAMP(1, 0);\n    Slot<kConsumers>& slot = sm.slot[n & 1];\n    const int len = bl.len(n);\n    // -S^T")
sub("    mbarrier_wait(&sm.full[n & 1], uint32_t(n >> 1) & 1);\n    float x[16];\n",
    "    mbarrier_wait(&sm.full[n & 1], uint32_t(n >> 1) & 1);\n    STAMP(1, 1);\n    float x[16];\n")
sub("    for (int i = 0; i < 8; ++i) rt[i] += x[i], on[i] = x[8 + i];\n",
    "    for (int i = 0; i < 8; ++i) rt[i] += x[i], on[i] = x[8 + i];\n    STAMP(1, 2);\n")
sub("    uint32_t ua[8];\n", "    STAMP(1, 3);\n    uint32_t ua[8];\n")
sub("    mbarrier_arrive(&sm.empty[n & 1]);\n\n", "    mbarrier_arrive(&sm.empty[n & 1]);\n    STAMP(1, 4);\n\n")
m = re.search(r"(          pv\.final_state\[it\.state_off \+ \(row \+ 8 \* h\) \* kK \+ 8 \* j \+ 4 \* e \+ tq\] = st\[4 \* j \+ 2 \* h \+ e\];\n  \}\n)(\}\n)", s)
assert m, "consume end"
dump = ("  if constexpr (kConsumers == 2) asm volatile(\"bar.sync 6, 256;\\n\" ::: \"memory\");  // PROBE: both consumers' state writes first\n"
        "  __syncwarp();  // PROBE: the warp's own state rows before the dump\n"
        "  if (blockIdx.x == 0 && ci == 0 && tid == 0 && pv.final_state)  // PROBE\n"
        "    for (int k = 0; k < 3 * 64 * 10; ++k) pv.final_state[k] = float((&g_stamp[0][0][0])[k] - g_stamp[0][0][0]);  // PROBE\n")
s = s[:m.end(1)] + dump + s[m.end(1):]
open(path, "w").write(s)
print("ok", s.count("STAMP("))
