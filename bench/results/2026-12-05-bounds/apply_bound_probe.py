"""Bound probes of the pair form (the fused path's 64-channel form), wrong results, timing only.
Each removes one role's share of a block's work, keeping every barrier, copy and byte count:
  producer  the producer forms no Kend^T, D or w*v (the slot's stores it makes after the vote);
  consumer  the consumer issues no first product (-S^T [Kb; Qg]^T, m64n32k128): x = 0, while the
            state's A fragments are still formed.
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
open(path, "w").write(s)
print("ok", kinds)
