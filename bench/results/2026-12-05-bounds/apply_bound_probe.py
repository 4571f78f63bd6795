"""Bound probes of the pair form (the fused path's 64-channel form), wrong results, timing only.
Each removes one role's share of a block's work, keeping every barrier, copy and byte count:
  producer  the producer forms no Kend^T, D or w*v (the slot's stores it makes after the vote);
  consumer  the consumer issues no first product (-S^T [Kb; Qg]^T, m64n32k128): x = 0, while the
            state's A fragments are still formed;
  v128half  the 128-channel form forms only the even blocks' key side: on odd blocks the producer
            and the solver keep their waits, arrivals and requests (the raw inputs still land)
            and form nothing, the vote taken as the tensor-core path (the bound of a pair of a GVA
            group's value heads, each CTA forming every other block, without the copies);
  v64quarter the pair form's CTAs form only the blocks n with n % 4 < 2: on the others each keeps
            its waits, arrivals, requests and copies and forms nothing, the vote taken as the
            tensor-core path (the bound of a GVA-2 group's four CTAs forming every fourth block
            each, without the extra copies).
usage: python3 apply_bound_probe.py src/kernels/fused.cuh producer|consumer [...]"""
import sys

path, kinds = sys.argv[1], sys.argv[2:]
s = open(path).read()


def sub(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)


if "producer" in kinds:
    sub("    if constexpr (R::kCtas == 1) wait_slot();\n    {\n      float e = 1.f, ke[kBlk];\n",
        "    if constexpr (R::kCtas == 1) wait_slot();\n    if constexpr (R::kCtas == 1) {  // PROBE\n      float e = 1.f, ke[kBlk];\n")
if "consumer" in kinds:
    sub("    wgmma_issue_desc<32, -1, kSteps, false>(x, sa, kq_step(0));\n",
        "    if constexpr (kConsumers == 1) {  // PROBE\n#pragma unroll\n      for (int i = 0; i < 16; ++i) x[i] = 0.f;\n"
        "    } else {\n      wgmma_issue_desc<32, -1, kSteps, false>(x, sa, kq_step(0));\n    }\n")
if "v128half" in kinds:
    sub("    if (m >= 2) mbarrier_wait(&sm.stage_empty[m & 1], uint32_t((m >> 1) - 1) & 1);\n",
        "    if (m >= 2) mbarrier_wait(&sm.stage_empty[m & 1], uint32_t((m >> 1) - 1) & 1);\n"
        "    if (kConsumers == 2 && (n & 1)) {  // PROBE: nothing formed on odd blocks\n"
        "      const bool fast = producer_sync_and(true);\n"
        "      if (c == 0) sm.fast[m & 1] = fast;\n"
        "      mbarrier_arrive(&sm.formed[m & 1]);\n"
        "      wait_slot();\n"
        "      fence_proxy_async();\n"
        "      mbarrier_arrive(&sm.full[si]);\n"
        "      continue;\n"
        "    }\n")
    sub("    mbarrier_wait(&sm.formed[m & 1], uint32_t(m >> 1) & 1);\n    const bool fast = sm.fast[m & 1];\n",
        "    mbarrier_wait(&sm.formed[m & 1], uint32_t(m >> 1) & 1);\n    const bool fast = sm.fast[m & 1];\n"
        "    if (kConsumers == 2 && (n & 1)) {  // PROBE: nothing formed on odd blocks\n"
        "      if (c == 0 && n + 2 < bl.count) issue_raw(p, it, bl, n + 2, sm.raw[m & 1], &sm.raw_full[m & 1]);\n"
        "      mbarrier_arrive(&sm.stage_empty[m & 1]);\n"
        "      wait_slot();\n"
        "      fence_proxy_async();\n"
        "      mbarrier_arrive(&sm.solved[si]);\n"
        "      continue;\n"
        "    }\n")
if "v64quarter" in kinds:
    sub("    if (m >= 2) mbarrier_wait(&sm.stage_empty[m & 1], uint32_t((m >> 1) - 1) & 1);\n",
        "    if (m >= 2) mbarrier_wait(&sm.stage_empty[m & 1], uint32_t((m >> 1) - 1) & 1);\n"
        "    if (kConsumers == 1 && ((n >> 1) & 1)) {  // PROBE: nothing formed on blocks n % 4 >= 2\n"
        "      const bool fast = producer_sync_and(true);\n"
        "      if (c == 0) sm.fast[m & 1] = fast;\n"
        "      mbarrier_arrive(&sm.formed[m & 1]);\n"
        "      wait_slot();\n"
        "      fence_proxy_async();\n"
        "      mbarrier_arrive(&sm.full[si]);\n"
        "      asm volatile(\"bar.sync %0, %1;\\n\" ::\"n\"(kProducerBarrier), \"n\"(kWarpgroup) : \"memory\");\n"
        "      if (c == 0) {\n"
        "        const int peer = rank ^ 1;\n"
        "        send_to_peer(kq, kKqRows * kK * sizeof(float), &sm.full[si], peer);\n"
        "        send_to_peer(&slot.kend, uint32_t(offsetof(Slot<kConsumers>, wv) - offsetof(Slot<kConsumers>, kend)), &sm.full[si], peer);\n"
        "        send_to_peer(&slot.wv[peer], sizeof(slot.wv[peer]), &sm.full[si], peer);\n"
        "      }\n"
        "      continue;\n"
        "    }\n")
    sub("      if (n + 2 * R::kCtas < bl.count) issue_raw(p, it, bl, n + 2 * R::kCtas, sm.raw[m & 1], &sm.raw_full[m & 1]);\n    };\n",
        "      if (n + 2 * R::kCtas < bl.count) issue_raw(p, it, bl, n + 2 * R::kCtas, sm.raw[m & 1], &sm.raw_full[m & 1]);\n    };\n"
        "    if (kConsumers == 1 && ((n >> 1) & 1)) {  // PROBE: nothing formed on blocks n % 4 >= 2\n"
        "      if (c == 96) request();\n"
        "      mbarrier_arrive(&sm.stage_empty[m & 1]);\n"
        "      wait_slot();\n"
        "      fence_proxy_async();\n"
        "      mbarrier_arrive(&sm.full[si]);\n"
        "      if (c == 0) {\n"
        "        mbarrier_wait(&sm.full[si], uint32_t(n >> R::kSlotsLog2) & 1);\n"
        "        send_to_peer(&slot, uint32_t(offsetof(Slot<kConsumers>, kend)), &sm.full[si], rank ^ 1);\n"
        "      }\n"
        "      continue;\n"
        "    }\n")
open(path, "w").write(s)
print("ok", kinds)
