#!/usr/bin/env bash
# End-to-end: the dashboard in Debian's headless Chromium (tests/browser/dashboard.test.mjs).
# Installs the test's one npm package (playwright-core, pinned by the lockfile) when missing;
# the screenshot lands next to the steward binary (the build directory).
set -euo pipefail
bin=$(realpath "${1:?usage: serve_browser.sh STEWARD}")
cd "$(dirname "$0")/../.."
command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "FAIL: no chromium (scripts/install-deps.sh)" >&2; exit 1; }
if [ ! -d tests/browser/node_modules/playwright-core ]; then
  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
fi
exec node tests/browser/dashboard.test.mjs "$bin" "$(dirname "$bin")"
