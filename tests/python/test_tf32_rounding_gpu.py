"""The kernels' TF32 rounding (cvt.rn.tf32.f32) against the CPU mirror's rule, bit for bit, on 33.5M
fp32 patterns (tests/gpu/tf32_rounding.cu). The CPU mirror's TF32 emulation, and with it the CPU
tests' accuracy tables, is only as faithful as this rule. Needs an sm_90 GPU and the built
`gdn2_tf32_rounding` (scripts/test.sh builds it; GDN2_BUILD_DIR, default build/)."""
from conftest import require_gpu_gdn2, run_built_program

require_gpu_gdn2()


def test_kernels_round_tf32_as_the_cpu_mirror():
    result = run_built_program("gdn2_tf32_rounding")
    assert result.returncode == 0 and "PASS" in result.stdout, result.stdout + result.stderr
