# Shared by the e2e tests that drive the twin's Kubernetes API (source it; not a test).
# Needs $bin (steward). Sourcing it sets up what every such test has: the harness ($tmp, `pids`,
# `fail`: lib/harness.sh), $kubectl (KUBECTL, default kubectl; it must exist), and `k` / `rows`
# (kubectl on $kc, and the row count of a `get`).
kubectl=${KUBECTL:-kubectl}
command -v "$kubectl" >/dev/null ||
  { echo "FAIL: no $kubectl on PATH (scripts/install-deps.sh)" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
k() { "$kubectl" --kubeconfig "$kc" --request-timeout 20s "$@"; }
rows() { k "$@" --no-headers 2>/dev/null | grep -c . || true; }

# start_kube_twin SCENARIO [SERVE_FLAG...]: runs `steward serve SCENARIO --warmup 0 --port 0
# --kube-port 0 --kubeconfig-out $tmp/kubeconfig` and waits until the Kubernetes API answers
# /readyz. Sets kc (the kubeconfig), kube_url and dash_url (the dashboard/JSON API). No warm-up:
# the rehearsal scenarios' stories (quota waits, idle notebooks, rollouts) start at t = 0.
start_kube_twin() {
  local scenario=$1
  shift
  kc="$tmp/kubeconfig"
  : >"$tmp/serve.log"  # Exists before the polling below reads it (the redirect is the child's).
  "$bin" serve "$scenario" --warmup 0 --port 0 --kube-port 0 --kubeconfig-out "$kc" "$@" \
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
    "$kubectl" --kubeconfig "$kc" get --raw /readyz >/dev/null 2>&1 && return 0
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

# simulate_cluster_against_dump [FILE...]: `policy simulate --kubeconfig` of the running twin
# between two kubectl dumps of the simulated kinds; the dumps (with FILE... beside them) are
# simulated too, and the round is retried until both dumps simulate alike (the twin runs on).
# Leaves $tmp/cluster.json (and .err) and $tmp/files_before.json, the dump's simulation.
simulate_cluster_against_dump() {
  local kinds=namespaces,resourceflavors.kueue.x-k8s.io,cohorts.kueue.x-k8s.io,clusterqueues.kueue.x-k8s.io,localqueues.kueue.x-k8s.io,workloadpriorityclasses.kueue.x-k8s.io,workloads.kueue.x-k8s.io
  local attempt
  for attempt in 1 2 3 4 5; do
    k get "$kinds" -A -o yaml >"$tmp/before.yaml"
    "$bin" policy simulate --kubeconfig "$kc" --json >"$tmp/cluster.json" 2>"$tmp/cluster.err" ||
      fail "simulate --kubeconfig failed: $(cat "$tmp/cluster.err")"
    k get "$kinds" -A -o yaml >"$tmp/after.yaml"
    "$bin" policy simulate "$tmp/before.yaml" "$@" --json >"$tmp/files_before.json" \
      2>"$tmp/files.err" || fail "simulate of kubectl's dump failed: $(cat "$tmp/files.err")"
    "$bin" policy simulate "$tmp/after.yaml" "$@" --json >"$tmp/files_after.json" \
      2>>"$tmp/files.err" || fail "simulate of kubectl's dump failed: $(cat "$tmp/files.err")"
    cmp -s "$tmp/files_before.json" "$tmp/files_after.json" && return 0
    sleep 1
  done
  fail "the twin's Kueue objects kept changing between dumps"
}

# start_dcgm_prometheus: Debian's Prometheus (tests/e2e/lib/prometheus.sh, sourced by the
# caller) scraping the twin's dcgm-exporter series ($dash_url/metrics/dcgm) every second;
# sets prom_url.
start_dcgm_prometheus() {
  prom=${prom:-$(command -v prometheus || echo /usr/bin/prometheus)}
  cat >"$tmp/prometheus.yml" <<EOF
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: dcgm
    metrics_path: /metrics/dcgm
    static_configs: [{targets: ["${dash_url#http://}"]}]
EOF
  start_prometheus "$tmp/prometheus.yml" "$tmp/data" "$tmp/prometheus.log"
}
