# Sourced by scripts/test.sh and scripts/main.sh: installs the build and test tools that are
# missing (Debian packages and PyPI only) and finds torch, when present, for the Python op.
as_root_with_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }
# Python packages: pip where this Python allows it, else Debian's package (a system Python that is
# "externally managed", PEP 668, refuses pip).
python_package() {  # module, pip requirement, Debian package
  python3 -c "import $1" 2>/dev/null && return 0
  python3 -m pip install -q "$2" 2>/dev/null && return 0
  if as_root_with_apt && [ "$(command -v python3)" = /usr/bin/python3 ]; then
    apt-get update -qq && apt-get install -y -qq "$3" >/dev/null && return 0
  fi
  echo "missing: the Python package $2 for $(command -v python3), and pip could not install it"
  echo "(an externally managed Python? use a virtual environment); install it, then run again"; exit 1
}
cmake_recent() {  # CMakeLists.txt needs 3.24
  local v
  v=$(cmake --version 2>/dev/null | awk 'NR == 1 {print $3}')
  [ -n "$v" ] && [ "$(printf '%s\n' 3.24 "$v" | sort -V | head -n1)" = 3.24 ]
}

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if as_root_with_apt; then
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "missing: ${need_apt[*]} (install them, then run again)"; exit 1
  fi
fi
if ! cmake_recent; then  # e.g. Ubuntu 22.04's 3.22: PyPI's cmake, on this Python's script path
  python3 -m pip install -q "cmake>=3.24" 2>/dev/null || true
  # (a virtual environment's or the interpreter's scripts, or the user's for a --user install)
  export PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$(python3 -m site --user-base)/bin:$PATH"
  hash -r
  cmake_recent || { echo "CMake >= 3.24 is needed, found: $(cmake --version 2>/dev/null | head -n1)"; exit 1; }
fi
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "nvcc (CUDA toolkit >= 12.4) not found"; exit 1; }
python_package pytest pytest python3-pytest
# numpy: the CPU models that tests/python checks (bench/segments.py, bench/fused_order_model.py).
python_package numpy numpy python3-numpy
# torch, when importable, enables the Python op (gdn2_torch) and its GPU tests.
if [ -z "${GDN2_TORCH_ROOT:-}" ]; then
  GDN2_TORCH_ROOT=$(python3 -c "import os, torch; print(os.path.dirname(torch.__file__))" 2>/dev/null || true)
fi
export GDN2_TORCH_ROOT
