#!/usr/bin/env bash
# End-to-end: `steward operate` against the twin's Kubernetes API (`serve --kube-port`), with
# Debian's Prometheus scraping the twin's dcgm-exporter series. An XID 79 on a free GPU of the
# node running the service's two replicas:
#   - dry run (`operate --once`): plans a cordon and a drain of exactly that node; the cluster is
#     untouched (kubectl still shows it schedulable, both replicas still there);
#   - `--apply`: cordons it and evicts through the Eviction API; the PodDisruptionBudget
#     (maxUnavailable 1) refuses the second replica with a 429, recorded, never deleted around;
#     a later pass (resuming from --state) evicts it once the first replica's replacement runs;
#   - the audit log holds every plan line and write (`operate log`, text and --json).
set -euo pipefail
bin=${1:?usage: operate_twin.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
source "$root/tests/e2e/lib/prometheus.sh"

start_kube_twin "$root/examples/kube/rehearsal.yaml" --speed 60 --dcgm-interval 10
start_dcgm_prometheus

ten_running() {
  [ "$(rows get pods -A --field-selector status.phase=Running,metadata.namespace!=gpu-operator)" = 10 ]
}
wait_until 60 "the rehearsal's 10 GPU pods run" ten_running
node=$(k get pods -n serving -o jsonpath='{.items[0].spec.nodeName}')
[ "$(rows get pods -n serving --field-selector spec.nodeName="$node")" = 2 ] ||
  fail "expected both service replicas on $node"

# XID 79 (GPU fell off the bus) on GPU 7, which holds no pod: the replicas keep running.
curl -sf -X POST "$dash_url/api/nodes/$node/fault" -d '{"xid":79,"gpu":7}' >/dev/null ||
  fail "fault injection"
xid_seen() {
  curl -sf "$prom_url/api/v1/query" --data-urlencode \
    "query=DCGM_FI_DEV_XID_ERRORS{Hostname=\"$node\",gpu=\"7\"} == 79" | grep -q '"value"'
}
wait_until 60 "Prometheus has scraped the XID" xid_seen

# --- Dry run: a plan, no write ----------------------------------------------------------------
# The tenant alert at 30%: training's six 8-GPU jobs hold 48 of 128 GPUs (37.5%).
"$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --once --audit "$tmp/dry.db" \
  --tier-step 0 --alert-tenant-share 0.3 >"$tmp/dry.out" 2>"$tmp/dry.err" ||
  fail "operate dry run: $(cat "$tmp/dry.err")"
grep -q "planned event namespace/training: Warning TenantOverThreshold (tenant training holds 48 of the cluster's 128 GPUs (38%" "$tmp/dry.out" ||
  fail "no planned tenant alert: $(cat "$tmp/dry.out")"
[ "$(grep -c "TenantOverThreshold" "$tmp/dry.out")" = 1 ] || fail "only training is over 30%"
grep -q "planned cordon node/$node: schedulable -> unschedulable (remediation: .*79" "$tmp/dry.out" ||
  fail "no planned cordon of $node: $(cat "$tmp/dry.out" "$tmp/dry.err")"
[ "$(grep -c "planned drain pod/serving/" "$tmp/dry.out")" = 2 ] ||
  fail "expected 2 planned evictions: $(cat "$tmp/dry.out")"
[ "$(grep -c "planned cordon" "$tmp/dry.out")" = 1 ] || fail "cordon planned for another node too"
if grep -v "$node" "$tmp/dry.out" | grep -E -q "planned (cordon|drain|evict)"; then
  fail "plan touches another node"
fi
[ -z "$(k get node "$node" -o jsonpath='{.spec.unschedulable}')" ] || fail "the dry run cordoned"
[ "$(rows get pods -n serving --field-selector spec.nodeName="$node")" = 2 ] ||
  fail "the dry run evicted"
"$bin" operate log --audit "$tmp/dry.db" --json | /usr/bin/python3 -c "
import json, sys
rows = json.load(sys.stdin)
assert {r['mode'] for r in rows} == {'planned'}, rows
assert [r['action'] for r in rows].count('drain') == 2, rows
events = sorted(r['after'] for r in rows if r['action'] == 'event')
# The tenant alert, and the stack check seeing the XID'd GPU leave allocatable.
assert events == ['Warning GPUStackGpusUnallocatable', 'Warning TenantOverThreshold'], events" ||
  fail "dry-run audit log"

# --- Apply: cordon, evict one replica, the budget refuses the second --------------------------
"$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --once --apply --audit "$tmp/audit.db" \
  --state "$tmp/state.db" --tier-step 0 >"$tmp/apply1.out" 2>"$tmp/apply1.err" ||
  fail "operate --apply: $(cat "$tmp/apply1.err")"
grep -q "applied cordon node/$node" "$tmp/apply1.out" || fail "no applied cordon: $(cat "$tmp/apply1.out")"
[ "$(k get node "$node" -o jsonpath='{.spec.unschedulable}')" = true ] || fail "node not cordoned"
[ "$(grep -c "applied drain pod/serving/" "$tmp/apply1.out")" = 1 ] ||
  fail "expected one eviction allowed: $(cat "$tmp/apply1.out")"
grep -q "failed drain pod/serving/.*429" "$tmp/apply1.out" ||
  fail "the budget's 429 is not recorded: $(cat "$tmp/apply1.out")"

# The first replica's replacement starts elsewhere (90 s startup = 1.5 s here); then a new pass
# resumes the drain from --state and the budget allows the second eviction.
service_back() { [ "$(rows get pods -n serving --field-selector status.phase=Running)" = 2 ]; }
wait_until 30 "the evicted replica is replaced" service_back
drained() {
  "$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --once --apply --audit "$tmp/audit.db" \
    --state "$tmp/state.db" --tier-step 0 >>"$tmp/apply2.out" 2>>"$tmp/apply2.err" &&
    [ "$(rows get pods -n serving --field-selector spec.nodeName="$node")" = 0 ]
}
wait_until 60 "a later pass evicts the second replica" drained
grep -q "applied drain pod/serving/" "$tmp/apply2.out" || fail "second eviction: $(cat "$tmp/apply2.out")"
wait_until 30 "the service runs two replicas again" service_back
[ "$(rows get pods -n serving --field-selector spec.nodeName="$node")" = 0 ] ||
  fail "a replica came back to the cordoned node"

# --- The audit log holds every write ----------------------------------------------------------
"$bin" operate log --audit "$tmp/audit.db" >"$tmp/log.txt" || fail "operate log"
grep -q "applied cordon node/$node" "$tmp/log.txt" || fail "audit: cordon"
[ "$(grep -c "applied drain pod/serving/" "$tmp/log.txt")" = 2 ] || fail "audit: evictions $(cat "$tmp/log.txt")"
grep -q "failed drain" "$tmp/log.txt" || fail "audit: the 429"
"$bin" operate log --audit "$tmp/audit.db" --json | /usr/bin/python3 -c "
import json, sys
rows = json.load(sys.stdin)
for r in rows:
    assert r['mode'] in ('applied', 'failed'), r
    assert r['time'].endswith('Z') and r['object'] and r['reason'], r" || fail "audit --json"
"$bin" operate log --audit "$tmp/nope.db" 2>/dev/null && fail "log of a missing file succeeded"
echo "operate planned, then applied, a checkpoint-aware, budget-respecting drain of $node"
