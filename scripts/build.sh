#!/usr/bin/env bash
# Configures and builds Steward into build/ (Release with debug info, Ninja).
# With arguments, builds only those targets (scripts/run.sh builds just `steward`); without,
# everything: the binary, the tests and the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build --parallel "$(nproc)" "${targets[@]}"
