# Sourced by scripts/test.sh and scripts/main.sh: installs the build and test tools that are
# missing (Debian packages and PyPI only) and finds torch, when present, for the Python op.
need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "missing: ${need_apt[*]} (install them, then run again)"; exit 1
  fi
fi
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "nvcc (CUDA toolkit >= 12.4) not found"; exit 1; }
python3 -c "import pytest" 2>/dev/null || python3 -m pip install -q pytest
# numpy: the CPU models that tests/python checks (bench/segments.py, bench/fused_order_model.py).
python3 -c "import numpy" 2>/dev/null || python3 -m pip install -q numpy
# torch, when importable, enables the Python op (gdn2_torch) and its GPU tests.
if [ -z "${GDN2_TORCH_ROOT:-}" ]; then
  GDN2_TORCH_ROOT=$(python3 -c "import os, torch; print(os.path.dirname(torch.__file__))" 2>/dev/null || true)
fi
export GDN2_TORCH_ROOT
