#!/usr/bin/env bash
# End-to-end: the dashboard's tenant isolation panel in Debian's headless Chromium
# (tests/browser/tenancy.test.mjs), on examples/tenancy/scenario.yaml and on a scenario without
# a tenancy section. Same setup as serve_browser.sh.
set -euo pipefail
bin=$(realpath "${1:?usage: serve_browser_tenancy.sh STEWARD}")
cd "$(dirname "$0")/../.."
source tests/e2e/lib/browser.sh
ensure_playwright
exec node tests/browser/tenancy.test.mjs "$bin" "$(dirname "$bin")"
