#!/usr/bin/env bash
# Every test, on a fresh machine: installs what is missing, builds, then runs
#   pytest tests/python   (GPU tests; they skip with a reason when there is no GPU or no torch)
#   ctest                 (C++ CPU tests: contract matrix, fp64 reference vs the chunked CPU mirror)
# and checks the ptxas report: every kernel free of spills, stack frames and serialized wgmma.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup_env.sh

build=${GDN2_BUILD_DIR:-build}
rm -rf "$build"   # a clean build: the ptxas report covers every kernel
configure_args=(-S . -B "$build" -G Ninja -DGDN2_BUILD_TESTS=ON)
if [ -n "${GDN2_TORCH_ROOT:-}" ]; then
  configure_args+=(-DGDN2_BUILD_TORCH=ON -DGDN2_TORCH_ROOT="$GDN2_TORCH_ROOT" -DPython3_EXECUTABLE="$(command -v python3)")
fi
cmake "${configure_args[@]}" > "$build.configure.log"
if ! cmake --build "$build" -j "$(nproc)" > "$build.log" 2>&1; then
  grep -E -B2 -A8 "error|FAILED" "$build.log" | head -80; echo "build failed, see $build.log"; exit 1
fi
python3 scripts/check_ptxas_report.py "$build.log"

set +e
PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest tests/python -q -rs
rc=$?
set -e
# 5 = nothing collected; GPU-only modules skip at import on machines without torch.
if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then exit "$rc"; fi

ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
