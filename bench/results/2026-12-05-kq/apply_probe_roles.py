"""Adds SM-clock marks per role and block to src/kernels/fused.cuh (main 46599b3, or the kq branch):
3 roles x 64 blocks x 10 marks of CTA 0 in static shared memory, dumped into final_state[0 .. 1920)
at the end (role_timeline.py reads them). After the rings folder's apply_probe_fh2.py, brought to
today's code. Stamping threads: producer thread 0, consumer 0's thread 0, each solver's first thread.
  producer 0 before its raw/stage waits, 1 after, 2 before the vote, 3 after formed, 4 after the
    empty wait, 5 after full;
  solver 0 before formed, 1 after, 2 after A/P (and, v128, the copy where there is one), 3 after
    its part of the inverse, 4 after full;
  consumer 0 at the block's start, 1 after full, 2 after the first product, 3 after U, 4 after empty.
usage: python3 apply_probe_roles.py src/kernels/fused.cuh"""
import sys

path = sys.argv[1]
s = open(path).read()
FULL = "sm.full[slot_of(n)]" if "slot_of(n)" in s else "sm.full[n & 1]"  # three slots (k3) or two
SOLVED = "sm.solved[n & 1]" if "sm.solved[" in s else FULL  # the split barriers (sf): solver, producer
STORED = "sm.stored[n & 1]" if "sm.stored[" in s else FULL


def sub(old, new, count=1):
    global s
    n = s.count(old)
    assert n == count, (old, n)
    s = s.replace(old, new)


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
inv = "        invert(sm.a[w], sm.t22[w][(n / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);\n      } else {"
sub(inv, inv.replace("      } else {", "        STAMP(2, 3);\n      } else {"))
inv2 = "      __syncwarp();  // the warp's A before its part of the inverse reads it\n      invert(sm.a[w], sm.t22[w][(n / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);\n    }\n"
sub(inv2, "      STAMP(2, 2);\n" + inv2.replace("    }\n", "      STAMP(2, 3);\n    }\n"))
end = "    fence_proxy_async();  // this thread's writes of the slot before the products read them\n"
assert s.count(end) == 2
i = s.index(end)  # the solver's (its marks follow), then the producer's
arr = f"    mbarrier_arrive(&{SOLVED});\n"
j = s.index(arr + "  }\n}\n", i)
s = s[:j] + arr + "    STAMP(2, 4);\n  }\n}\n" + s[j + len(arr + "  }\n}\n"):]
k = s.index(end, j)
arr = f"    mbarrier_arrive(&{STORED});\n"
m = s.index(arr + "  }\n", k)
s = s[:m] + arr + "    STAMP(0, 5);\n  }\n" + s[m + len(arr + "  }\n"):]
# producer
sub("  const int slot_row = k_at_position(c);\n", "  const int slot_row = k_at_position(c);\n  const bool kStamper = c == 0;  // PROBE\n")
sub("    mbarrier_wait(&sm.raw_full[n & 1], uint32_t(n >> 1) & 1);\n",
    "    STAMP(0, 0);\n    mbarrier_wait(&sm.raw_full[n & 1], uint32_t(n >> 1) & 1);\n")
sub("    if (n >= 2) mbarrier_wait(&sm.stage_empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n",
    "    if (n >= 2) mbarrier_wait(&sm.stage_empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n    STAMP(0, 1);\n")
sub("    const bool fast = producer_sync_and(ok);\n", "    STAMP(0, 2);\n    const bool fast = producer_sync_and(ok);\n")
for w in ("    if (n >= 2) mbarrier_wait(&sm.empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n    {\n",
          "    wait_slot_free(sm.empty, n);\n    {\n"):
    if w in s:
        sub(w, "    STAMP(0, 3);\n" + w.replace("    {\n", "    STAMP(0, 4);\n    {\n"))
ke = "      if (n >= 2) mbarrier_wait(&sm.empty[n & 1], uint32_t((n >> 1) - 1) & 1);\n#pragma unroll\n"  # Kend first (ke)
if ke in s:
    sub(ke, "      STAMP(0, 3);\n" + ke.replace("#pragma", "      STAMP(0, 4);\n#pragma"))
assert s.count("STAMP(0, 3);") == 1, "the producer's wait for the slot not found"
# consumer
sub("  float st[kK / 2];  // st[4 j", "  const bool kStamper = ci == 0 && tid == 0;  // PROBE\n  float st[kK / 2];  // st[4 j")
sub("  for (int n = 0; n < bl.count; ++n, out += kBlk * row_stride) {\n",
    "  for (int n = 0; n < bl.count; ++n, out += kBlk * row_stride) {\n    STAMP(1, 0);\n")
sub("    if (n == 0 && ci == 0 && tid == 0) GDN2_FUSED_MARK(kFusedFirstNs, global_timer_ns());\n",
    "    if (n == 0 && ci == 0 && tid == 0) GDN2_FUSED_MARK(kFusedFirstNs, global_timer_ns());\n    STAMP(1, 1);\n")
sub("    for (int i = 0; i < 8; ++i) rt[i] += x[i], on[i] = x[8 + i];\n",
    "    for (int i = 0; i < 8; ++i) rt[i] += x[i], on[i] = x[8 + i];\n    STAMP(1, 2);\n")
sub("    uint32_t ua[8];\n", "    STAMP(1, 3);\n    uint32_t ua[8];\n")
e = "    mbarrier_arrive(&sm.empty[slot_of(n)]);\n\n" if "slot_of(n)" in s else "    mbarrier_arrive(&sm.empty[n & 1]);\n\n"
sub(e, e[:-1] + "    STAMP(1, 4);\n\n")
fin = "        for (int e = 0; e < 2; ++e) pv.final_state[state_at(j, h, e)] = st[4 * j + 2 * h + e];\n  }\n"
dump = ("  if constexpr (kConsumers == 2) asm volatile(\"bar.sync 6, 256;\\n\" ::: \"memory\");  // PROBE: both consumers' state first\n"
        "  __syncwarp();  // PROBE\n"
        "  if (blockIdx.x == 0 && ci == 0 && tid == 0 && pv.final_state)  // PROBE\n"
        "    for (int k = 0; k < 3 * 64 * 10; ++k) pv.final_state[k] = float((&g_stamp[0][0][0])[k] - g_stamp[0][0][0]);  // PROBE\n")
sub(fin, fin + dump)
open(path, "w").write(s)
print("ok", s.count("STAMP("))
