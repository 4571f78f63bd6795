"""A caller's kernel that lets the call launch at its start and writes cu_seqlens later, then a call
without the max_seqlen hint whose choice of path is made on the device (tests/gpu/pdl_caller_order.cu):
the call's output and final state must be bit for bit those of the same call made after a
synchronisation, whichever way the written offsets change the choice. Needs an sm_90 GPU and the
built `gdn2_pdl_caller_order` (scripts/test.sh builds it; GDN2_BUILD_DIR, default build/)."""
from conftest import require_gpu_gdn2, run_built_program

require_gpu_gdn2()


def test_the_call_decides_on_the_offsets_its_caller_wrote():
    result = run_built_program("gdn2_pdl_caller_order", 10)
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr
