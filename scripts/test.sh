#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (unit, integration and end-to-end) with CTest,
# then replays the fuzz corpora under AddressSanitizer and UBSan (scripts/fuzz-replay.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --fuzz
scripts/build.sh
# The browser tests' npm package, once, before the tests run in parallel.
(source tests/e2e/lib/browser.sh && ensure_playwright)
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
scripts/fuzz-replay.sh
