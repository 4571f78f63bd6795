#!/usr/bin/env bash
# The main job, on a fresh machine: builds, then
#  - with an NVIDIA Hopper GPU and torch: the canonical benchmark rows of SPEC.md (latency, graph
#    replay, FLA when installed, HBM floor) and the accuracy check against the fp64 reference;
#    results under bench/results/<date>-<gpu>/ (pass --quick for the canonical rows only);
#  - without a GPU: says so, and runs the CPU mirror of the chunked algorithm against the fp64
#    tokenwise reference on a small problem.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup_env.sh

build=${GDN2_BUILD_DIR:-build}
configure_args=(-S . -B "$build" -G Ninja -DGDN2_BUILD_TESTS=OFF)
if [ -n "${GDN2_TORCH_ROOT:-}" ]; then
  configure_args+=(-DGDN2_BUILD_TORCH=ON -DGDN2_TORCH_ROOT="$GDN2_TORCH_ROOT" -DPython3_EXECUTABLE="$(command -v python3)")
fi
cmake "${configure_args[@]}" > /dev/null
cmake --build "$build" -j "$(nproc)" > "$build.main.log" 2>&1 || { tail -40 "$build.main.log"; exit 1; }

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && [ -n "${GDN2_TORCH_ROOT:-}" ] \
   && python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  "./$build/gdn2_example"
  PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" python3 bench/bench.py "$@"
else
  echo "No usable GPU here (an NVIDIA Hopper GPU and torch are needed for the benchmark)."
  echo "Running the CPU reference instead: the chunked algorithm's CPU mirror vs the fp64 recurrence."
  "./$build/gdn2_example"
fi
