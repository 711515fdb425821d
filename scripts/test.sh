#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (unit, integration and end-to-end) with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
