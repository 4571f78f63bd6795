"""(bench/results/2026-12-05-pair/apply_probe_pair.py with the anchors of the side move: the solver
sends the slot, the producer kq only.) Adds SM-clock marks per role and block to src/kernels/fused.cuh of the `pair` branch (p3): CTA 0
(rank 0) only, 3 roles x 32 blocks x 8 marks as 32-bit clock() in static shared memory (3 KB: the
pair form's 222,208 bytes leave no room for more), dumped into final_state[0 .. 768) at the end
(pair_timeline.py reads them). Stamping threads: producer thread 0, each solver's first thread,
the consumer's thread 0. Marks, per block n:
  producer 0 before its raw wait, 1 after the stage wait, 2 before the slot's (empty) wait, 3 after,
    4 before the vote, 5 after formed, 6 after full, 7 after its copies are issued;
  solver 0 before formed, 1 after, 2 after the inverse, 3 after full, 4 after its full wait (its
    copy issued);
  consumer 0 at the block's start, 1 after full, 2 after the first product, 3 after U, 4 after empty.
usage: python3 apply_probe_pair.py src/kernels/fused.cuh"""
import sys

path = sys.argv[1]
s = open(path).read()


def sub(old, new, count=1):
    global s
    n = s.count(old)
    assert n == count, (old, n)
    s = s.replace(old, new)


sub("__device__ __forceinline__ float bf(uint16_t x) { return __uint_as_float(uint32_t(x) << 16); }\n",
    "__device__ __forceinline__ float bf(uint16_t x) { return __uint_as_float(uint32_t(x) << 16); }\n"
    "static __shared__ unsigned g_stamp[3][32][8];  // PROBE\n"
    "#define STAMP(role, m) if (kStamper && n < 32) g_stamp[role][n][m] = (unsigned)clock()  // PROBE\n")
# solver
sub("  const int c = c0 % R::kSolverThreads, warp = c / 32, lane = c % 32;\n",
    "  const int c = c0 % R::kSolverThreads, warp = c / 32, lane = c % 32;\n  const bool kStamper = c == 0 && blockIdx.x == 0;  // PROBE\n")
sub("    mbarrier_wait(&sm.formed[m & 1], uint32_t(m >> 1) & 1);\n",
    "    STAMP(2, 0);\n    mbarrier_wait(&sm.formed[m & 1], uint32_t(m >> 1) & 1);\n    STAMP(2, 1);\n")
inv = "        invert(sm.a[w], sm.t22[w][(m / kSolvers) & 1], slot, warp, lane, kInverseBarrier + 2 * w, wait_slot);\n      } else {"
sub(inv, inv.replace("      } else {", "        STAMP(2, 2);\n      } else {"))
sub("    mbarrier_arrive(R::kSplitSlot ? &sm.solved[si] : &sm.full[si]);\n",
    "    mbarrier_arrive(R::kSplitSlot ? &sm.solved[si] : &sm.full[si]);\n    STAMP(2, 3);\n")
sub("        send_to_peer(&slot.wv[peer], sizeof(slot.wv[peer]), &sm.full[si], peer);\n",
    "        send_to_peer(&slot.wv[peer], sizeof(slot.wv[peer]), &sm.full[si], peer);\n        STAMP(2, 4);\n")
# producer
sub("  const int slot_row = k_at_position(c);\n", "  const int slot_row = k_at_position(c);\n  const bool kStamper = c == 0 && blockIdx.x == 0;  // PROBE\n")
sub("    mbarrier_wait(&sm.raw_full[m & 1], uint32_t(m >> 1) & 1);\n",
    "    STAMP(0, 0);\n    mbarrier_wait(&sm.raw_full[m & 1], uint32_t(m >> 1) & 1);\n")
sub("    if (m >= 2) mbarrier_wait(&sm.stage_empty[m & 1], uint32_t((m >> 1) - 1) & 1);\n",
    "    if (m >= 2) mbarrier_wait(&sm.stage_empty[m & 1], uint32_t((m >> 1) - 1) & 1);\n    STAMP(0, 1);\n")
sub("    if constexpr (R::kCtas == 2) wait_slot();  // kq[n % 4]'s last readers: block n - 4 (Smem)\n",
    "    STAMP(0, 2);\n    if constexpr (R::kCtas == 2) wait_slot();  // kq[n % 4]'s last readers: block n - 4 (Smem)\n    STAMP(0, 3);\n")
sub("    const bool fast = producer_sync_and(ok);\n", "    STAMP(0, 4);\n    const bool fast = producer_sync_and(ok);\n")
sub("    mbarrier_arrive(&sm.formed[m & 1]);\n", "    mbarrier_arrive(&sm.formed[m & 1]);\n    STAMP(0, 5);\n")
sub("    mbarrier_arrive(&sm.full[si]);\n    if constexpr (R::kCtas == 2) {\n",
    "    mbarrier_arrive(&sm.full[si]);\n    STAMP(0, 6);\n    if constexpr (R::kCtas == 2) {\n")
sub("      if (c == 0) send_to_peer(kq, kKqRows * kK * sizeof(float), &sm.full[si], rank ^ 1);\n",
    "      if (c == 0) send_to_peer(kq, kKqRows * kK * sizeof(float), &sm.full[si], rank ^ 1);\n      STAMP(0, 7);\n")
# consumer
sub("  float st[kK / 2];  // st[4 j", "  const bool kStamper = ci == 0 && tid == 0 && blockIdx.x == 0;  // PROBE\n  float st[kK / 2];  // st[4 j")
sub("  for (int n = 0; n < bl.count; ++n, out += kBlk * row_stride) {\n",
    "  for (int n = 0; n < bl.count; ++n, out += kBlk * row_stride) {\n    STAMP(1, 0);\n")
sub("    if (n == 0 && ci == 0 && tid == 0) GDN2_FUSED_MARK(kFusedFirstNs, global_timer_ns());\n",
    "    if (n == 0 && ci == 0 && tid == 0) GDN2_FUSED_MARK(kFusedFirstNs, global_timer_ns());\n    STAMP(1, 1);\n")
sub("    for (int i = 0; i < 8; ++i) rt[i] += x[i], on[i] = x[8 + i];\n",
    "    for (int i = 0; i < 8; ++i) rt[i] += x[i], on[i] = x[8 + i];\n    STAMP(1, 2);\n")
sub("    uint32_t ua[8];\n", "    STAMP(1, 3);\n    uint32_t ua[8];\n")
ARRIVE = "remote" if "mbarrier_arrive_remote(" in s else "cluster"
sub(f"        else mbarrier_arrive_{ARRIVE}(peer_address(&sm.empty[si], peer));\n      }}\n    }}\n",
    f"        else mbarrier_arrive_{ARRIVE}(peer_address(&sm.empty[si], peer));\n      }}\n    }}\n    STAMP(1, 4);\n")
fin = "        for (int e = 0; e < 2; ++e) pv.final_state[state_at(j, h, e)] = st[4 * j + 2 * h + e];\n  }\n"
dump = ("  if (kConsumers == 1 && blockIdx.x == 0 && tid == 0 && pv.final_state)  // PROBE (the other roles' last marks: long done)\n"
        "    for (int k = 0; k < 3 * 32 * 8; ++k) pv.final_state[k] = float(int((&g_stamp[0][0][0])[k] - g_stamp[0][0][0]));  // PROBE\n")
sub(fin, fin + dump)
open(path, "w").write(s)
print("ok", s.count("STAMP("))
