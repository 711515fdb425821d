#!/usr/bin/env bash
# Installs Steward's build and test dependencies from Debian (bookworm). Idempotent: packages
# already present are left alone, and apt-get runs only when something is missing.
#   scripts/install-deps.sh [--build-only | --fuzz]
#     --build-only: only what building `steward` needs (scripts/run.sh: a first run does not wait
#                   for Chromium, Prometheus and the test clients)
#     --fuzz:       also clang and its sanitizer/libFuzzer runtimes (scripts/fuzz-replay.sh)
set -euo pipefail
mode=${1:-}
packages=(
  g++ cmake ninja-build pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev libsqlite3-dev sqlite3
  libcpp-httplib-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev
)
[ "$mode" = --build-only ] || packages+=(
  python3 python3-yaml python3-kubernetes curl openssl prometheus
  apache2-utils  # htpasswd -B: the bcrypt hash of the https + basic-auth Prometheus test
  chromium
)
# The Kubernetes API front is checked with the real kubectl: the machine image's (v1.32) where
# one is on PATH, else Debian's kubernetes-client (kubectl 1.20).
[ "$mode" = --build-only ] || command -v kubectl >/dev/null 2>&1 || packages+=(kubernetes-client)
[ "$mode" = --fuzz ] && packages+=(clang libclang-rt-14-dev)
# The dashboard's browser test runs node (playwright-core from npm); a machine without node
# gets Debian's nodejs and npm.
[ "$mode" = --build-only ] || command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Debian's prometheus package starts a system service on port 9090; Steward's tests start their
# own on a free loopback port, so the packaged one is stopped where a service manager runs it.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  systemctl stop prometheus || true
fi
