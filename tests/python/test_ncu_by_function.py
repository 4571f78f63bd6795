"""bench/ncu_by_function.py (phase 1's Nsight Compute stall samples per function) on a synthetic
SASS listing and source page. CPU only: runs in CI."""
import csv
import gzip
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "ncu_by_function.py"
SOURCE = ROOT / "src" / "kernels" / "chunk_factors.cu"


def line_in(function):
    """A line inside `function`'s body in chunk_factors.cu (the one after its signature)."""
    for number, text in enumerate(SOURCE.read_text().split("\n"), 1):
        if text.startswith("__device__") and f" {function}(" in text:
            return number + 1
    raise AssertionError(f"{function} not found")


def write_inputs(tmp_path, rows, kernel1_rows, wavefronts=None):
    """rows: (line info group, stall samples) per instruction of chunk_factors_kernel<false>;
    wavefronts: (shared-memory wavefronts, without conflicts) per instruction, or None."""
    sass = ["//--------------------- .text._ZN4gdn27kernels20chunk_factors_kernelILb0EEEvNS0_P -----"]
    for group, _ in rows:
        sass += [f'\t//## File "{f}", line {ln}' + (f' inlined at "{of}", line {oln}' if of else "")
                 for f, ln, of, oln in group]
        sass.append("        /*0000*/                   FMUL R1, R2, R3 ;")
    sass.append("//--------------------- .text._ZN4gdn27kernels20chunk_factors_kernelILb1EEEvNS0_P -----")
    sass += ["        /*0000*/                   FMUL R1, R2, R3 ;"] * kernel1_rows
    (tmp_path / "cf.sass").write_text("\n".join(sass) + "\n")
    header = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed",
              "stall_barrier", "stall_short_sb", "stall_barrier (Not Issued)",
              "L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal"]
    wavefronts = wavefronts or [(0, 0)] * len(rows)
    with gzip.open(tmp_path / "prof.csv.gz", "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Kernel Name", "chunk_factors_kernel<(bool)0>"])
        w.writerow(header)
        for i, ((_, samples), (wf, ideal)) in enumerate(zip(rows, wavefronts)):
            w.writerow([hex(i * 16), "FMUL R1, R2, R3", samples, 10, samples // 2, samples - samples // 2, 0, wf, ideal])


def run(tmp_path, *extra):
    return subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "prof.csv.gz"), str(tmp_path / "cf.sass"), *extra],
                          capture_output=True, text=True)


def test_samples_summed_where_inlined(tmp_path):
    cf = str(SOURCE)
    helper = str(ROOT / "src" / "kernels" / "device_common.cuh")
    rows = [
        ([(cf, line_in("mid_column"), None, 0)], 5),
        ([(cf, line_in("mid_column"), None, 0)], 7),
        # a device_common.cuh helper inlined into store_mid_column counts for store_mid_column
        ([(helper, 40, cf, line_in("store_mid_column")), (cf, line_in("store_mid_column"), cf, 900)], 11),
        # the innermost chunk_factors.cu frame wins over the outer ones
        ([(cf, line_in("load_column"), cf, line_in("mid_column")), (cf, line_in("mid_column"), cf, 900)], 3),
    ]
    write_inputs(tmp_path, rows, kernel1_rows=2)
    result = run(tmp_path)
    assert result.returncode == 0, result.stderr
    by = {line.split()[3]: int(line.split()[0]) for line in result.stdout.splitlines()[1:]}
    assert by == {"mid_column": 12, "store_mid_column": 11, "load_column": 3}
    assert result.stdout.startswith("26 samples")


def test_refuses_another_build(tmp_path):
    cf = str(SOURCE)
    write_inputs(tmp_path, [([(cf, line_in("mid_column"), None, 0)], 1)], kernel1_rows=3)
    # the published instantiation has 3 instructions here, the profile 1
    result = run(tmp_path, "--kernel", "1")
    assert result.returncode != 0
    assert "not the same build" in result.stderr


def test_shared_wavefronts_per_function(tmp_path):
    cf = str(SOURCE)
    rows = [([(cf, line_in("mid_column"), None, 0)], 1), ([(cf, line_in("stage_chunk"), None, 0)], 1),
            ([(cf, line_in("stage_chunk"), None, 0)], 1)]
    write_inputs(tmp_path, rows, kernel1_rows=0, wavefronts=[(4, 4), (8, 4), (6, 4)])
    result = run(tmp_path, "--shared")
    assert result.returncode == 0, result.stderr
    shared = result.stdout.split("shared-memory wavefronts")[1].splitlines()[1:]
    assert result.stdout.count("18 shared-memory wavefronts (12 without bank conflicts)") == 1
    assert [line.split() for line in shared] == [["14", "8", "6", "stage_chunk"], ["4", "4", "0", "mid_column"]]


def test_another_source(tmp_path):
    # line L lies in store_mid_column in this checkout, and in mid_column in the --source copy
    # (lines added before it)
    text = SOURCE.read_text().split("\n")
    at, later = line_in("mid_column"), line_in("store_mid_column")
    shifted = tmp_path / "chunk_factors.cu"
    shifted.write_text("\n".join(["// added"] * (later - at) + text))
    write_inputs(tmp_path, [([(str(SOURCE), later, None, 0)], 5)], kernel1_rows=0)
    assert run(tmp_path).stdout.splitlines()[1].split()[3] == "store_mid_column"
    assert run(tmp_path, "--source", str(shifted)).stdout.splitlines()[1].split()[3] == "mid_column"


def test_another_kernel_by_name(tmp_path):
    # --kernel-name picks the section whose mangled name holds it, and --source the file whose
    # functions count: the fused persistent 128-channel kernel, per function of fused.cuh
    fused = ROOT / "src" / "kernels" / "fused.cuh"
    text = fused.read_text().split("\n")

    def fused_line(function):
        return next(n + 1 for n, t in enumerate(text, 1) if t.startswith("__device__") and f" {function}(" in t)

    helper = str(ROOT / "src" / "kernels" / "wgmma.cuh")
    sass = ["//--------------------- .text._ZN4gdn27kernels5fused12fused_kernelILi2ELi1EEEvNS1_11FusedParamsE -----",
            f'\t//## File "{fused}", line {fused_line("produce")}', "        /*0000*/                   FMUL R1, R2, R3 ;",
            "//--------------------- .text._ZN4gdn27kernels5fused23fused_persistent_kernelILi2ELi1EEEvNS1_11FusedParamsE -----"]
    for group in ([(str(fused), fused_line("produce"), None, 0)], [(str(fused), fused_line("consume"), None, 0)],
                  [(helper, 30, str(fused), fused_line("invert"))]):
        sass += [f'\t//## File "{f}", line {ln}' + (f' inlined at "{of}", line {oln}' if of else "") for f, ln, of, oln in group]
        sass.append("        /*0000*/                   FMUL R1, R2, R3 ;")
    (tmp_path / "cf.sass").write_text("\n".join(sass) + "\n")
    header = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_barrier"]
    with gzip.open(tmp_path / "prof.csv.gz", "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Kernel Name", "fused_persistent_kernel<2, 1>"])
        w.writerow(header)
        for i, samples in enumerate((4, 9, 2)):
            w.writerow([hex(i * 16), "FMUL R1, R2, R3", samples, 10, samples])
    result = run(tmp_path, "--kernel-name", "fused_persistent_kernelILi2ELi1E", "--source", str(fused))
    assert result.returncode == 0, result.stderr
    by = {line.split()[3]: int(line.split()[0]) for line in result.stdout.splitlines()[1:]}
    assert by == {"consume": 9, "produce": 4, "invert": 2}
