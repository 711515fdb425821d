#!/usr/bin/env bash
# End-to-end: the twin's Kubernetes API driven by Debian's python3-kubernetes client
# (tests/e2e/kube_python.py): lists against the twin's own JSON API, a pod watch across a 410
# Expired and a re-list, node patches (strategic merge, JSON patch, server dry run) and
# evictions allowed and refused by a PodDisruptionBudget. The watch window is shortened with
# --kube-watch-window so the 410 comes in seconds.
set -euo pipefail
bin=${1:?usage: kube_python.sh STEWARD}
# Debian's client lives in the system Python (pyenv's python3 may shadow it on the PATH).
# Fails (never skips) when it is missing: CI installs it (scripts/install-deps.sh).
py=/usr/bin/python3
"$py" -c 'import kubernetes' || { echo "FAIL: $py has no kubernetes module (python3-kubernetes)" >&2; exit 1; }
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/log" >&2 || true; exit 1; }

window=3
"$bin" serve examples/kube/rehearsal.yaml --warmup 0 --port 0 --kube-port 0 \
  --kubeconfig-out "$tmp/kubeconfig" --speed 60 --kube-watch-window "$window" \
  >"$tmp/log" 2>&1 & pid=$!
twin_port= kube_port=
for _ in $(seq 1 600); do
  twin_port=$(sed -n 's|.*serving scenario .* at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log" | head -1)
  kube_port=$(sed -n 's|.*Kubernetes API at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log" | head -1)
  [ -n "$twin_port" ] && [ -n "$kube_port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "serve exited"
  sleep 0.1
done
[ -n "$kube_port" ] || fail "serve printed no Kubernetes API address"
[ -s "$tmp/kubeconfig" ] || fail "no kubeconfig written"

"$py" tests/e2e/kube_python.py --kubeconfig "$tmp/kubeconfig" \
  --twin "http://127.0.0.1:$twin_port" --watch-window "$window" || fail "kube_python.py"
kill -0 "$pid" 2>/dev/null || fail "serve died during the test"
echo "PASS kube_python"
