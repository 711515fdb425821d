#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time (issue 16), each on a scratch copy of its seed
# corpus (tests/fuzz/corpus/NAME), so new inputs never land in the repo unasked.
#   scripts/fuzz.sh [SECONDS_PER_TARGET=60] [TARGET...]
# Builds build-fuzz/ with clang, ASan and UBSan first (cmake/fuzz.cmake). A crash leaves its
# input in out/fuzz/NAME/ (crash-*, leak-*, timeout-*) and makes the script exit 1; replay one
# with `build-fuzz/NAME_fuzz out/fuzz/NAME/crash-...`, and add it to the corpus once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
[ -f build-fuzz/build.ninja ] || CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEWARD_FUZZ=ON >/dev/null
ninja -C build-fuzz -j2 fuzz_targets
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in tests/fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi
failed=0
for t in "${targets[@]}"; do
  out=out/fuzz/$t
  rm -rf "$out" && mkdir -p "$out/corpus"
  cp tests/fuzz/corpus/"$t"/* "$out/corpus/"
  echo "== $t: ${seconds}s"
  if ! (cd "$out" && "../../../build-fuzz/${t}_fuzz" -max_total_time="$seconds" -max_len=65536 \
        -timeout=10 -rss_limit_mb=2048 corpus >log.txt 2>&1); then
    echo "FAIL: $t (see $out/log.txt and $out/crash-*)"
    failed=1
  else
    tail -n 1 "$out/log.txt"
  fi
done
exit "$failed"
