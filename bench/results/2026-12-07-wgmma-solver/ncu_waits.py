"""Stall samples of the fused kernel's mbarrier waits, by barrier (SYNCS.PHASECHK's offset) and role."""
import sys, gzip, csv, re, collections
sass, prof, kname = sys.argv[1:4]
bases = sorted((int(k, 16), v) for k, v in (x.split("=") for x in sys.argv[4].split(",")))
def barrier_name(off):  # the array whose first element lies at or below off (the listed bases in order)
    below = [v for b, v in bases if b <= off]
    return below[-1] if below else hex(off)
ins = []  # (text) per instruction of the kernel
inside = False
for line in open(sass):
    if line.startswith(".text."):
        inside = kname in line
    elif inside and re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+\S", line):
        ins.append(re.sub(r"/\* 0x[0-9a-f]+ \*/", "", line).strip())
with gzip.open(prof, "rt") as f:
    r = csv.reader(f); next(r); h = next(r); rows = [x for x in r if len(x) >= len(h)]
assert len(rows) == len(ins), (len(rows), len(ins))
col = {k: i for i, k in enumerate(h)}
samples = [int(x[col["Warp Stall Sampling (All Samples)"]] or 0) for x in rows]
total = sum(samples)
# roles by setmaxnreg regions in address order
# regions between setmaxnreg instructions, each named by what it holds: the producer's MUFU.EX2,
# the solver's HMMA (mma.sync), the consumers' HGMMA (wgmma); the retry loops after the last
# region's end count for the role whose region holds their branch target (not resolved here: they
# count for the last region)
starts = [i for i, t in enumerate(ins) if "USETMAXREG" in t] + [len(ins)]
roles = ["prologue"] * starts[0]
for a, b in zip(starts, starts[1:]):
    body = " ".join(ins[a:b])
    name = "producer" if "MUFU.EX2" in body else "solver" if "HMMA.1688" in body else "consumers" if "HGMMA" in body else "?"
    roles += [name] * (b - a)
by_role = collections.Counter()
for ro, s in zip(roles, samples):
    by_role[ro] += s
# each TRYWAIT and the instructions until the next branch back: the wait's samples
waits = collections.Counter()
for i, t in enumerate(ins):
    m = re.search(r"SYNCS\.PHASECHK\.TRANS64\.TRYWAIT P\d, \[[^\]]*0x([0-9a-f]+)\]", t)
    if not m:
        continue
    off = int(m.group(1), 16)
    name = barrier_name(off)
    pred = re.search(r"TRYWAIT (P\d)", t).group(1)
    j = i  # through the branch that tests the try-wait's predicate (its result, on the long scoreboard)
    while j + 1 < len(ins) and not re.search(r"@!" + pred + r" +BRA", ins[j]):
        j += 1
    s = sum(samples[i:j + 1])
    waits[(roles[i], name)] += s
print(f"{total} samples; by role (setmaxnreg regions; the out-of-line retry loops at the end count for the last region's role):")
for ro, s in by_role.most_common():
    print(f"  {ro:10s} {s:6d} {100 * s / total:5.1f}%")
print("mbarrier waits (the try-wait through the branch on its result), by role and barrier:")
for (ro, name), s in waits.most_common(12):
    print(f"  {ro:10s} {name:12s} {s:6d} {100 * s / total:5.1f}%")
