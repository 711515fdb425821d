#!/usr/bin/env bash
# End-to-end: a live rollout's XID gate from Prometheus. `steward rollout run --kubeconfig
# --apply --prometheus` against the twin's Kubernetes API, with Debian's Prometheus scraping the
# twin's dcgm-exporter series: an XID on the canary node while it soaks shows up in
# DCGM_FI_DEV_XID_ERRORS, the xid_rate_delta gate fails against the untouched nodes, and the
# canary goes back to 550.90.07; no other node is touched.
set -euo pipefail
bin=${1:?usage: rollout_live_prometheus.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
source "$root/tests/e2e/lib/prometheus.sh"
py=/usr/bin/python3

start_kube_twin "$root/examples/rollouts/cluster.yaml" --speed 60 --dcgm-interval 10
start_dcgm_prometheus

cat >"$tmp/plan.yaml" <<'YAML'
kind: Rollout
name: live-xids
component: driver
version: "570.86.15"
previousVersion: "550.90.07"
selector: {steward.io/rack: rack-0}
maxParallel: 1
maxUnavailable: 1
soak: 15s
restartTime: 1s
checkpointGrace: 2s
evictionGrace: 1s
batches:
  - {name: canary, nodes: [h100-0000]}
  - {name: rest, rest: true}
gates:
  # Wall-clock hours: one XID in the ~15 s window is ~240 per node-hour.
  - {name: xids, metric: xid_rate_delta, successCondition: "result <= 50", failureCondition: "result > 100"}
YAML

status_field() {
  "$bin" rollout status --state "$tmp/live.db" --json 2>/dev/null |
    "$py" -c "import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1], {}, {'s': s}))" "$1" \
    2>/dev/null || true
}

"$bin" rollout run "$tmp/plan.yaml" --kubeconfig "$kc" --apply --state "$tmp/live.db" \
  --prometheus "$prom_url" --interval 0.3 >"$tmp/apply.out" 2>"$tmp/apply.err" &
pid=$!
pids+=("$pid")
soaking() { [ "$(status_field "s['batches'][0]['state']")" = soak ]; }
wait_until 60 "the canary soaks" soaking
# XID 13 (graphics engine exception) on the canary's GPU 3.
curl -sf -X POST "$dash_url/api/nodes/h100-0000/fault" -d '{"xid":13,"gpu":3}' >/dev/null ||
  fail "fault injection"
wait "$pid" || fail "rollout failed: $(tail -5 "$tmp/apply.err")"

"$bin" rollout status --state "$tmp/live.db" --json >"$tmp/status.json"
"$py" - "$tmp/status.json" <<'PY' || fail "status: $(head -c 3000 "$tmp/status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["state"] == "rolled_back", s["state"]
g = s["batches"][0]["gates"][0]
assert g["verdict"] == "failed" and g["value"] > 100, g
assert s["batches"][1]["state"] == "pending"
assert s["nodes_upgraded"] == 1 and s["nodes_rolled_back"] == 1
PY
[ "$(k get node h100-0000 -o jsonpath='{.metadata.labels.steward\.io/gpu-driver-version}')" = 550.90.07 ] ||
  fail "the canary was not rolled back"
for node in h100-0001 h100-0002 h100-0003; do
  [ "$(k get node "$node" -o jsonpath='{.metadata.labels.steward\.io/gpu-driver-version}')" = "" ] ||
    fail "$node was touched"
done
echo "rollout live prometheus: ok"
