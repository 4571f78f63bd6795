"""The persistent 128-channel kernel's produce(), per source line of fused.cuh: stall samples and warp
instructions executed per block, from call 6's source counters (B8x2K-MHA: 128 items of 128 blocks).
usage: python3 producer_lines.py fused_v128_persistent.sass call6-h100/sass-B8x2K-MHA.csv.gz src/kernels/fused.cuh"""
import collections
import csv
import gzip
import re
import sys

sass, prof, source = sys.argv[1:4]
src = open(source).read().split("\n")
lines, inside, group, key = [], False, [], 0
for line in open(sass):
    if line.startswith(".text."):
        inside = "fused_persistent_kernelILi2ELi1E" in line
    m = re.search(r'//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?', line)
    if m:
        group.append((m.group(1), int(m.group(2)), m.group(3), int(m.group(4)) if m.group(4) else 0))
        continue
    if re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+\S", line):
        if group:  # the innermost fused.cuh line: the file itself or where it was inlined
            key = next((ln for f, ln, _, _ in group if f.endswith("fused.cuh")),
                       next((oln for _, _, of, oln in group if of and of.endswith("fused.cuh")), 0))
            group = []
        if inside:
            lines.append(key)
with gzip.open(prof, "rt") as f:
    r = csv.reader(f)
    next(r)
    h = next(r)
    rows = [x for x in r if len(x) >= len(h)]
col = {k: i for i, k in enumerate(h)}
assert len(rows) == len(lines), "not the same build"
s, e = collections.Counter(), collections.Counter()
for ln, x in zip(lines, rows):
    s[ln] += int(x[col["Warp Stall Sampling (All Samples)"]] or 0)
    e[ln] += int(x[col["Instructions Executed"]] or 0)
lo = next(i for i, t in enumerate(src, 1) if t.startswith("__device__ void produce("))
hi = next(i for i, t in enumerate(src, 1) if i > lo and t.startswith("}"))
blocks = 128 * 128
print(f"produce (lines {lo}-{hi}) on B8x2K-MHA: per source line, stall samples and warp instructions executed per block ({blocks} blocks)")
print(f"total: {sum(v for k, v in s.items() if lo <= k <= hi)} samples, "
      f"{sum(v for k, v in e.items() if lo <= k <= hi) / blocks:.0f} warp instructions per block")
for k in sorted([k for k in e if lo <= k <= hi], key=lambda k: -e[k])[:30]:
    print(f"{k:5d} {s[k]:6d} {e[k] / blocks:7.1f}  {src[k - 1].strip()[:90]}")
