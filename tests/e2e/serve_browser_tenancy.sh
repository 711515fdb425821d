#!/usr/bin/env bash
# End-to-end: the dashboard's tenant isolation panel in Debian's headless Chromium
# (tests/browser/tenancy.test.mjs), on examples/tenancy/scenario.yaml and on a scenario without
# a tenancy section. Same setup as serve_browser.sh.
set -euo pipefail
bin=$(realpath "${1:?usage: serve_browser_tenancy.sh STEWARD}")
cd "$(dirname "$0")/../.."
command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "FAIL: no chromium (scripts/install-deps.sh)" >&2; exit 1; }
if [ ! -d tests/browser/node_modules/playwright-core ]; then
  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
fi
exec node tests/browser/tenancy.test.mjs "$bin" "$(dirname "$bin")"
