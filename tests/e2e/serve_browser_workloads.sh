#!/usr/bin/env bash
# End-to-end: the dashboard's workload list, filters, node panel, heatmap search and zoom, chart
# markers and incident summary at 10,240 GPUs after serve's warm-up, in Debian's headless
# Chromium (tests/browser/workloads.test.mjs). Same setup as serve_browser.sh.
set -euo pipefail
bin=$(realpath "${1:?usage: serve_browser_workloads.sh STEWARD}")
cd "$(dirname "$0")/../.."
source tests/e2e/lib/browser.sh
ensure_playwright
exec node tests/browser/workloads.test.mjs "$bin" "$(dirname "$bin")"
