#!/usr/bin/env bash
# Replays every seed corpus under tests/fuzz/corpus/ once through its libFuzzer target, built
# with clang, AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/
# (cmake/fuzz.cmake): any crash, leak or undefined behaviour fails. scripts/test.sh runs it after
# the main suite; scripts/fuzz.sh fuzzes for a bounded time (its own build-fuzz/, optimized).
# -O0 with line tables: replay needs no speed, the build takes half the time of -O1, and a
# report still names file and line.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build-sanitize/build.ninja ] || CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" \
  -DSTEWARD_FUZZ=ON >/dev/null
cmake --build build-sanitize --parallel "$(nproc)" --target fuzz_targets
ctest --test-dir build-sanitize -R '^fuzz\.' --output-on-failure --timeout 600 -j "$(nproc)"
