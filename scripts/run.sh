#!/usr/bin/env bash
# Installs, builds and runs the main job: the twin on the built-in 10,240-GPU scenario.
# Extra arguments go to `steward twin run` (e.g. --days 7 --json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build-only  # Chromium, Prometheus and the test clients come with scripts/test.sh
scripts/build.sh steward  # only what the main job needs, not the tests
mkdir -p out
exec build/steward twin run --html out/report.html "$@"
