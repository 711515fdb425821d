#!/usr/bin/env bash
# End-to-end: a human answers a paused rollout from the dashboard in Debian's headless Chromium
# (tests/browser/rollout_answer.test.mjs), on examples/rollouts/twin-paused.yaml without its
# scripted human. Same setup as serve_browser.sh.
set -euo pipefail
bin=$(realpath "${1:?usage: serve_browser_rollout_answer.sh STEWARD}")
cd "$(dirname "$0")/../.."
source tests/e2e/lib/browser.sh
ensure_playwright
exec node tests/browser/rollout_answer.test.mjs "$bin"
