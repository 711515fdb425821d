# Shared by the e2e tests that drive the twin's Kubernetes API (source it; not a test).
# Needs: $bin (steward), $tmp (a scratch directory), the array `pids` (the caller's cleanup
# kills them) and a `fail` function.

# start_kube_twin SCENARIO [SERVE_FLAG...]: runs `steward serve SCENARIO --port 0 --kube-port 0
# --kubeconfig-out $tmp/kubeconfig` and waits until the Kubernetes API answers /readyz. Sets
# kc (the kubeconfig), kube_url and dash_url (the dashboard/JSON API).
start_kube_twin() {
  local scenario=$1
  shift
  kc="$tmp/kubeconfig"
  "$bin" serve "$scenario" --port 0 --kube-port 0 --kubeconfig-out "$kc" "$@" \
    >"$tmp/serve.log" 2>&1 &
  pids+=($!)
  kube_url= dash_url=
  for _ in $(seq 1 600); do
    kube_url=$(sed -n 's|.*Kubernetes API at \(https\?://[^ ]*\)/ .*|\1|p' "$tmp/serve.log")
    dash_url=$(sed -n 's|.*serving scenario .* at \(http://[^ ]*\)/ .*|\1|p' "$tmp/serve.log")
    [ -n "$kube_url" ] && [ -n "$dash_url" ] && [ -s "$kc" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || fail "steward serve exited: $(cat "$tmp/serve.log")"
    sleep 0.1
  done
  [ -n "$kube_url" ] || fail "serve printed no Kubernetes API address"
  for _ in $(seq 1 300); do
    "${kubectl:-kubectl}" --kubeconfig "$kc" get --raw /readyz >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "the Kubernetes API at $kube_url never became ready"
}

# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.2 s until it succeeds.
wait_until() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "timed out after ${seconds}s waiting until $what"
    sleep 0.2
  done
}
