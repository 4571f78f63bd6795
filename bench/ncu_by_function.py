"""Nsight Compute's per-instruction warp-stall samples of a kernel, summed per function of its
source file: by default chunk_factors, per function of src/kernels/chunk_factors.cu (a helper
counts where it is inlined into that file); with --kernel-name and --source any other kernel, e.g.
the fused persistent 128-channel form per function of src/kernels/fused.cuh (its roles: produce,
solve, consume, and their helpers).

Needs the SASS of the profiled kernel with line information, from the same source and flags
plus -lineinfo (which does not change the code; the script checks the instruction count):
  nvcc -I include -I src -O3 -DNDEBUG -lineinfo -gencode=arch=compute_90a,code=sm_90a \\
       --expt-relaxed-constexpr -std=c++17 -cubin -o cf.cubin src/kernels/chunk_factors.cu
  nvdisasm -c -gi cf.cubin > cf.sass
and the profile's source page (ncu --section SourceCounters ... -o prof, then
  ncu -i prof.ncu-rep --page source --csv --print-source sass | gzip > prof-sass.csv.gz).

usage: python3 bench/ncu_by_function.py prof-sass.csv.gz cf.sass [--kernel 0|1] [--kernel-name S] [--source F] [--shared]
  (--kernel: chunk_factors_kernel<false> (0, default) or <true> (1, the published instantiation);
   --kernel-name: instead, the kernel whose mangled name contains S, e.g.
     fused_persistent_kernelILi2ELi1E (cubin of src/kernels/fused_v128_persistent.cu);
   --source: the file whose functions count (default chunk_factors.cu; --kernel-name wants one,
     e.g. src/kernels/fused.cuh), or the chunk_factors.cu that cf.sass was built from;
   --shared: also the shared-memory wavefronts per function, against the conflict-free count)
"""
import argparse
import collections
import csv
import gzip
import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "src" / "kernels" / "chunk_factors.cu"


def functions_by_line(source=SOURCE):
    """The function each line of the source lies in: the name on the last line that begins a
    __device__ or __global__ function (its first name before a parenthesis, so that a one-line
    body's calls do not count), or a struct (its member functions count for the struct)."""
    at, current = {}, "?"
    for number, line in enumerate(Path(source).read_text().split("\n"), 1):
        if re.match(r"^(?:template <[^>]*>\s*)?__(?:device|global)__", line):
            names = [n for n in re.findall(r"(\w+)\(", line) if n != "__launch_bounds__"]
            current = names[0] if names else current
        else:
            m = re.match(r"^(?:template <[^>]*>\s*)?struct (\w+)", line)
            current = m.group(1) if m else current
        at[number] = current
    return at


def instruction_functions(sass_path, kernel, source=SOURCE):
    """The source file's function of each instruction of the kernel, in address order. kernel: 0 or
    1 (chunk_factors_kernel<false> or <true>), or a substring of the kernel's mangled name."""
    at, name = functions_by_line(source), Path(source).name
    if isinstance(kernel, str):
        wanted = lambda section: kernel in section
    else:
        wanted = lambda section: "chunk_factors_kernel" in section and f"kernelILb{kernel}" in section
    out, inside, group, key = [], False, [], "?"
    for line in open(sass_path):
        if ".text." in line:
            inside = wanted(line)
        m = re.search(r'//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?', line)
        if m:
            group.append((m.group(1), int(m.group(2)), m.group(3), int(m.group(4)) if m.group(4) else 0))
            continue
        if re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+\S", line):
            if group:  # innermost frame in the source file: the file itself or where it was inlined
                key = next((at.get(ln, "?") for f, ln, _, _ in group if f.endswith(name)),
                           next((at.get(oln, "?") for _, _, of, oln in group if of and of.endswith(name)),
                                Path(group[0][0]).name))
                group = []
            if inside:
                out.append(key)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("profile_csv")
    p.add_argument("sass")
    p.add_argument("--kernel", type=int, default=0)
    p.add_argument("--kernel-name")
    p.add_argument("--source", default=str(SOURCE))
    p.add_argument("--shared", action="store_true")
    args = p.parse_args()
    keys = instruction_functions(args.sass, args.kernel_name or args.kernel, args.source)
    with gzip.open(args.profile_csv, "rt") if args.profile_csv.endswith(".gz") else open(args.profile_csv) as f:
        reader = csv.reader(f)
        next(reader)  # the kernel's name
        header = next(reader)
        rows = [r for r in reader if len(r) >= len(header)]
    if len(rows) != len(keys):
        raise SystemExit(f"the profile has {len(rows)} instructions, the SASS {len(keys)}: not the same build")
    col = {h: i for i, h in enumerate(header)}
    stalls = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    samples, executed = collections.Counter(), collections.Counter()
    reasons = collections.defaultdict(collections.Counter)
    for key, r in zip(keys, rows):
        samples[key] += int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
        executed[key] += int(r[col["Instructions Executed"]] or 0)
        for h in stalls:
            reasons[key][h] += int(r[col[h]] or 0)
    total = sum(samples.values())
    print(f"{total} samples; per function: samples, share, warp instructions executed, top stall reasons")
    for key, n in samples.most_common(25):
        top = ", ".join(f"{h[6:]} {v}" for h, v in reasons[key].most_common(3))
        print(f"{n:7d} {100 * n / max(total, 1):5.1f}%  {executed[key]:10d}  {key:26s} {top}")
    if args.shared:
        # One wavefront is one shared-memory access cycle of the SM; "ideal" counts the same
        # accesses without bank conflicts.
        wf, ideal = collections.Counter(), collections.Counter()
        for key, r in zip(keys, rows):
            wf[key] += int(float(r[col["L1 Wavefronts Shared"]] or 0))
            ideal[key] += int(float(r[col["L1 Wavefronts Shared Ideal"]] or 0))
        print(f"\n{sum(wf.values())} shared-memory wavefronts ({sum(ideal.values())} without bank conflicts); "
              "per function: wavefronts, without conflicts, excess")
        for key, n in wf.most_common():
            if n:
                print(f"{n:12d} {ideal[key]:12d} {n - ideal[key]:10d}  {key}")


if __name__ == "__main__":
    main()
