"""bench/sass_census.py (a fused kernel's SASS attributed to fused.cuh's functions) on a synthetic
listing. CPU only: runs in CI."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "sass_census.py"
SOURCE = ROOT / "src" / "kernels" / "fused.cuh"
_spec = importlib.util.spec_from_file_location("sass_census", SCRIPT)
census = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(census)


def line_in(function):
    """A line inside `function`'s body in fused.cuh (the one after its signature)."""
    for number, text in enumerate(SOURCE.read_text().split("\n"), 1):
        if "__device__" in text and f" {function}(" in text:
            return number + 1
    raise AssertionError(f"{function} not found")


def listing(body, kernel="fused_persistent_kernelILi2ELi1EE"):
    return "\n".join([f"//--------------------- .text._ZN4gdn27kernels5fused23{kernel}vNS1_11FusedParamsE -----"] + body +
                     ["//--------------------- .text._ZN4gdn27kernels5fused12other_kernel -----",
                      "        /*0000*/                   FMUL R9, R9, R9 ;"])


def test_attribution_and_loops():
    fused = str(SOURCE)
    helper = '\t//## File "/x/device_common.cuh", line 97 inlined at "%s", line %d' % (fused, line_in("tensor_ap"))
    body = [
        '\t//## File "%s", line %d' % (fused, line_in("produce")),
        "        /*0000*/                   FMUL R1, R2, R3 ;",
        ".L_x_1:",
        # a helper inlined into tensor_ap, itself inlined into solve: the innermost role function counts
        helper,
        '\t//## File "%s", line %d inlined at "%s", line %d' % (fused, line_in("tensor_ap"), fused, line_in("solve")),
        "        /*0010*/                   LDSM.16.M88.4 R4, [R5] ;",
        '\t//## File "%s", line %d' % (fused, line_in("consume")),
        "        /*0020*/                   HGMMA.64x32x8.F32.TF32 R24, gdesc[UR4], RZ ;",
        "        /*0030*/              @!P0 BRA `(.L_x_1) ;",  # no annotation: the previous function's
        "        /*0040*/                   EXIT ;",
    ]
    report = census.census(listing(body), min_loop=1)
    assert report[0] == "5 instructions; per function: consume 3, produce 1, tensor_ap 1"
    assert report[1] == "per role: consumer 3, producer 1, solver 1"
    assert len(report) == 3 and report[2].startswith("loop [1, 3]: 3 instructions; functions consume 2, tensor_ap 1")
    assert "HGMMA 1" in report[2] and "LDSM 1" in report[2]


def test_unknown_kernel_is_refused():
    try:
        census.census(listing([]), kernel="no_such_kernel")
    except SystemExit as e:
        assert "no_such_kernel" in str(e)
    else:
        raise AssertionError("a kernel that is not in the listing must be refused")
