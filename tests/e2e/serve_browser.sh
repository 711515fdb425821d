#!/usr/bin/env bash
# End-to-end: the dashboard in Debian's headless Chromium (tests/browser/dashboard.test.mjs).
# Installs the test's one npm package (playwright-core, pinned by the lockfile) when missing;
# the screenshot lands next to the steward binary (the build directory).
set -euo pipefail
bin=$(realpath "${1:?usage: serve_browser.sh STEWARD}")
cd "$(dirname "$0")/../.."
source tests/e2e/lib/browser.sh
ensure_playwright
exec node tests/browser/dashboard.test.mjs "$bin" "$(dirname "$bin")"
