#!/usr/bin/env bash
# End-to-end: the dashboard's Rollouts panel in Debian's headless Chromium
# (tests/browser/rollouts.test.mjs), on examples/rollouts/twin-driver-rollouts.yaml. Same setup
# as serve_browser.sh.
set -euo pipefail
bin=$(realpath "${1:?usage: serve_browser_rollouts.sh STEWARD}")
cd "$(dirname "$0")/../.."
source tests/e2e/lib/browser.sh
ensure_playwright
exec node tests/browser/rollouts.test.mjs "$bin" "$(dirname "$bin")"
