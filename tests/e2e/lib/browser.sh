# Shared by the headless-Chromium e2e tests (source it from the repo root; not a test).
# Installs the tests' one npm package (playwright-core, pinned by tests/browser's lockfile) once:
# scripts/test.sh does it before CTest starts; when a test runs alone, the first one installs
# under a lock, so two browser tests started together never run `npm ci` over each other.
ensure_playwright() {
  command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/install-deps.sh)" >&2; exit 1; }
  [ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "FAIL: no chromium (scripts/install-deps.sh)" >&2; exit 1; }
  (
    flock 9
    if [ ! -f tests/browser/node_modules/playwright-core/package.json ]; then
      npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
    fi
  ) 9>tests/browser/.npm-install.lock
}
