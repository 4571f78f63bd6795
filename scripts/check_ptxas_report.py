#!/usr/bin/env python3
"""Fails unless the build log's ptxas report shows every gdn2 kernel with no stack frame,
no spill stores and no spill loads (issue: kernels free of spills and local memory), and no
wgmma pipeline warning (ptxas's C75xx messages: "wgmma.mma_async instructions are serialized ...",
"warpgroup.arrive is injected ..."). Those compile and run correctly, but a serialized wgmma
chain measured far slower (docs/performance.md, "fp16 rows"), and nothing else reports it.

usage: check_ptxas_report.py BUILD_LOG
The log must come from a clean build (ptxas reports only what it compiles)."""
import re
import sys

KERNELS = ("chunk_factors_kernel", "state_pass_kernel", "validate_values_kernel", "recurrent_kernel", "fused_kernel",
           "fused_persistent_kernel")


def main(path: str) -> int:
    text = open(path, encoding="utf-8", errors="replace").read()
    pattern = re.compile(
        r"Function properties for (\S+)\s+(\d+) bytes stack frame, (\d+) bytes spill stores, "
        r"(\d+) bytes spill loads")
    seen, bad, functions = set(), [], 0
    for name, stack, stores, loads in pattern.findall(text):
        kernel = next((k for k in KERNELS if k in name), None)
        if kernel is None:
            continue
        seen.add(kernel)
        functions += 1
        if int(stack) or int(stores) or int(loads):
            bad.append(f"{kernel}: {stack} B stack frame, {stores} B spill stores, {loads} B spill loads")
    # ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized
    # due to insufficient register resources for the function '_ZN...'
    # The wording varies by message ("for the function", "in the function", "in function"), so each
    # C75xx line is read for its code and the last quoted name on it; one that names no function
    # fails too, as it cannot be told apart from one of ours.
    for line in text.splitlines():
        found = re.search(r"\((C75\d\d)\)\s*(.*)", line)
        if found is None:
            continue
        code, rest = found.groups()
        names = re.findall(r"'(\S+)'", rest)
        what = re.sub(r"\s*(?:(?:for|in)(?: the)? function)?\s*'\S+'.*$", "", rest).strip()
        if not names:
            bad.append(f"ptxas {code} for no named function: {what}")
            continue
        kernel = next((k for k in KERNELS if k in names[-1]), None)
        if kernel is not None:
            bad.append(f"{kernel}: ptxas {code}: {what}")
    missing = [k for k in KERNELS if k not in seen]
    if missing:
        print(f"ptxas report: no report for {', '.join(missing)} in {path} (not a clean build?)")
        return 1
    if bad:
        print("ptxas report: local memory in use or wgmma serialized:\n  " + "\n  ".join(bad))
        return 1
    print(f"ptxas report: {len(seen)} kernels ({functions} compiled functions), 0 bytes stack frame, "
          "0 bytes spilled, no wgmma pipeline warning")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
