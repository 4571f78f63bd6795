"""Where a fused kernel's instructions go, statically: each SASS instruction of one kernel attributed
to the src/kernels/fused.cuh function it comes from (the innermost fused.cuh line of its inlining
chain that lies in a role's function: produce, solve, tensor_ap, invert, exact_ap, consume, ...),
and the kernel's loops (a backward branch to a label) with their instructions per function and
their most frequent opcodes. Counts are static: a loop body counts both sides of its branches once.

Needs the SASS with line information, from the build's own flags (CMake's kernels carry -lineinfo):
  cuobjdump -xelf all build/CMakeFiles/gdn2.dir/src/kernels/fused_v128_persistent.cu.o
  nvdisasm -gi fused_v128_persistent.sm_90a.cubin > v128p.sass

usage: python3 bench/sass_census.py v128p.sass [--kernel fused_persistent_kernel] [--min-loop 60]
  [--source F]   (the fused.cuh the cubin was built from, if not this checkout's)
"""
import argparse
import collections
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_by_function import functions_by_line  # noqa: E402  (fused.cuh's line -> function, as for chunk_factors.cu)

SOURCE = Path(__file__).resolve().parent.parent / "src" / "kernels" / "fused.cuh"
# The roles' functions (the rest of fused.cuh counts as "kernel": prologues, schedules, claims).
ROLE_FUNCTIONS = {
    "produce": "producer",
    "solve": "solver", "tensor_ap": "solver", "invert": "solver", "exact_ap": "solver", "exact_sums": "solver",
    "keep_rows": "solver", "kq_rows": "solver", "solver_sync": "solver",
    "consume": "consumer", "load_state_quads": "consumer", "store_state_quads": "consumer",
    "store_state_pairs": "consumer", "transpose_quad": "consumer",
}
INSTRUCTION = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\.L_x_\d+):")
BRANCH = re.compile(r"\bBRA\b[^`]*`\((\.L_x_\d+)\)")


def kernel_lines(sass_text, kernel):
    """The lines of the first .text section whose symbol contains `kernel`."""
    out, inside = [], False
    for line in sass_text.split("\n"):
        if line.startswith("//---------------------"):
            inside = ".text." in line and kernel in line if not out else False
            if not inside and out:
                break
            continue
        if inside:
            out.append(line)
    return out


def attribute(lines, source=SOURCE):
    """[(function, opcode)] per instruction, and {label: instruction index}."""
    at = functions_by_line(source)
    insts, labels, chain, pending, last = [], {}, [], [], "kernel"
    for line in lines:
        if "//## File" in line:
            chain.append(line)
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSTRUCTION.match(line)
        if not m:
            continue
        function = None
        for group in chain:  # innermost first
            for f, n in re.findall(r'"([^"]+)", line (\d+)', group):
                if f.endswith("fused.cuh") and at.get(int(n)) in ROLE_FUNCTIONS:
                    function = at[int(n)]
                    break
            if function:
                break
        function = function or ("kernel" if chain else last)
        last, chain = function, []
        for label in pending:
            labels[label] = len(insts)
        pending = []
        words = m.group(2).split()
        opcode = words[1] if words[0].startswith("@") else words[0]
        insts.append((function, opcode, m.group(2)))
    return insts, labels


def census(sass_text, kernel="fused_persistent_kernel", min_loop=60, source=SOURCE):
    lines = kernel_lines(sass_text, kernel)
    if not lines:
        raise SystemExit(f"no .text section of a kernel named like {kernel!r}")
    insts, labels = attribute(lines, source)
    report = [f"{len(insts)} instructions; per function: " +
              ", ".join(f"{f} {c}" for f, c in collections.Counter(f for f, _, _ in insts).most_common())]
    roles = collections.Counter(ROLE_FUNCTIONS.get(f, "kernel") for f, _, _ in insts)
    report.append("per role: " + ", ".join(f"{r} {c}" for r, c in roles.most_common()))
    loops = set()
    for i, (_, _, text) in enumerate(insts):
        m = BRANCH.search(text)
        if m and m.group(1) in labels and labels[m.group(1)] <= i:
            loops.add((labels[m.group(1)], i))
    for start, end in sorted(loops):
        body = insts[start:end + 1]
        if len(body) < min_loop:
            continue
        functions = collections.Counter(f for f, _, _ in body).most_common(5)
        ops = collections.Counter(op.split(".")[0] for _, op, _ in body).most_common(10)
        report.append(f"loop [{start}, {end}]: {len(body)} instructions; functions " +
                      ", ".join(f"{f} {c}" for f, c in functions) + "; opcodes " +
                      ", ".join(f"{o} {c}" for o, c in ops))
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sass")
    ap.add_argument("--kernel", default="fused_persistent_kernel")
    ap.add_argument("--min-loop", type=int, default=60)
    ap.add_argument("--source", default=str(SOURCE))
    a = ap.parse_args()
    print("\n".join(census(Path(a.sass).read_text(), a.kernel, a.min_loop, a.source)))


if __name__ == "__main__":
    main()
