#!/usr/bin/env bash
# End-to-end: deploy/'s RBAC allows exactly the Kubernetes API calls `steward operate` makes.
# The twin's API front logs every request (`serve --kube-request-log`, audit.k8s.io/v1 Event
# lines); with Debian's Prometheus scraping an injected XID 79, operate runs every path:
#   - plan mode (no --apply; --health-port: /readyz, /metrics): judged by rbac-readonly.yaml;
#   - --server-dry-run: judged by rbac-apply.yaml, and rbac-readonly.yaml must deny it (a
#     dryRun=All write is authorized as the write);
#   - --apply until the node is drained and its repair ticket (node annotation + Event) is
#     out: cordon (PATCH nodes), evictions (pods/eviction, a 429 included), the Event;
#   - idle reclaim, and tidal lending (--tidal: PATCH of ClusterQueues).
# tests/e2e/lib/rbac_check.py evaluates the roles as the RBAC authorizer does: every request
# allowed, every granted verb x resource used or listed below as not exercised, with why.
# Also: every deploy/ YAML parses, and `kubectl kustomize deploy/` builds offline.
set -euo pipefail
bin=${1:?usage: deploy_rbac.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
source "$root/tests/e2e/lib/prometheus.sh"
py=/usr/bin/python3
check="$py $root/tests/e2e/lib/rbac_check.py --subject steward-system/steward"

# --- The manifests parse; kubectl validates them offline -----------------------------------
$py - "$root/deploy" <<'PY' || fail "deploy/ YAML"
import glob, sys, yaml
kinds = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.yaml")):
    for d in yaml.safe_load_all(open(f)):
        if d:
            assert d.get("apiVersion") and d.get("kind"), (f, d)
            kinds.setdefault(d["kind"], []).append(d)
for want in ("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
             "RoleBinding", "Deployment", "Service", "ServiceMonitor", "Kustomization"):
    assert want in kinds, f"deploy/ has no {want}"
dep = kinds["Deployment"][0]
spec = dep["spec"]["template"]["spec"]
c = spec["containers"][0]
assert dep["spec"]["replicas"] == 2
for flag in ("--apply", "--leader-elect", "--health-port=8080", "--health-listen=0.0.0.0"):
    assert flag in c["args"], flag
assert spec["securityContext"]["runAsNonRoot"] and c["securityContext"]["readOnlyRootFilesystem"]
assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
assert c["resources"]["requests"] and c["resources"]["limits"]
kust = kinds["Kustomization"][0]
for r in kust["resources"]:
    assert glob.glob(sys.argv[1] + "/" + r), f"kustomization.yaml lists a missing {r}"
PY
# `kubectl apply --dry-run=client` needs the server's discovery even with --validate=false, so
# it cannot run offline; `kubectl kustomize` builds the kustomization without a server.
kubectl kustomize "$root/deploy" >"$tmp/kustomized.yaml" 2>"$tmp/kustomize.err" ||
  fail "kubectl kustomize deploy/: $(cat "$tmp/kustomize.err")"
$py - "$tmp/kustomized.yaml" <<'PY' || fail "the kustomized manifests"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = sorted({d["kind"] for d in docs})
assert kinds == sorted({"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
                        "RoleBinding", "Deployment", "Service"}), kinds
for d in docs:
    assert d["metadata"]["labels"]["app.kubernetes.io/part-of"] == "steward", d["metadata"]
PY

# --- The twin, its request log, Prometheus, an XID ----------------------------------------
log="$tmp/requests.jsonl"
start_kube_twin "$root/examples/kube/rehearsal.yaml" --speed 60 --dcgm-interval 10 \
  --kube-request-log "$log"
start_dcgm_prometheus
ten_running() {
  [ "$(rows get pods -A --field-selector status.phase=Running,metadata.namespace!=gpu-operator)" = 10 ]
}
wait_until 60 "the rehearsal's 10 GPU pods run" ten_running
node=$(k get pods -n serving -o jsonpath='{.items[0].spec.nodeName}')
curl -sf -X POST "$dash_url/api/nodes/$node/fault" -d '{"xid":79,"gpu":7}' >/dev/null ||
  fail "fault injection"
xid_seen() {
  curl -sf "$prom_url/api/v1/query" --data-urlencode \
    "query=DCGM_FI_DEV_XID_ERRORS{Hostname=\"$node\",gpu=\"7\"} == 79" | grep -q '"value"'
}
wait_until 60 "Prometheus has scraped the XID" xid_seen

# Lines of the request log from here on (each phase runs one operate at a time; the test's own
# kubectl calls are told apart by user agent).
mark() { wc -l <"$log"; }
since() { tail -n +"$(($1 + 1))" "$log" >"$2"; }
ops=(--kubeconfig "$kc" --prometheus "$prom_url" --tier-step 0 --ticket-hold 0)

# --- Plan mode, with the health endpoint ----------------------------------------------------
m=$(mark)
hport=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" operate "${ops[@]}" --interval 1 --health-port "$hport" >"$tmp/plan.out" 2>"$tmp/plan.err" &
plan_pid=$!
pids+=("$plan_pid")
planned() {
  curl -sf "http://127.0.0.1:$hport/readyz" >/dev/null &&
    curl -sf "http://127.0.0.1:$hport/metrics" >"$tmp/metrics.txt" &&
    grep -q '^steward_operate_actions_total{mode="planned"} [1-9]' "$tmp/metrics.txt" &&
    grep -q '^steward_operate_passes_total [2-9]' "$tmp/metrics.txt"
}
wait_until 60 "plan mode is ready and has planned (/readyz, /metrics)" planned
grep -q '^steward_operate_is_leader 1' "$tmp/metrics.txt" || fail "is_leader: $(cat "$tmp/metrics.txt")"
grep -q '^steward_stack_findings{check="device-plugin-down"} [0-9]' "$tmp/metrics.txt" ||
  fail "no stack findings on operate's /metrics: $(cat "$tmp/metrics.txt")"
curl -sf "http://127.0.0.1:$hport/healthz" >/dev/null || fail "/healthz"
kill -TERM "$plan_pid"
wait "$plan_pid" || fail "plan mode exited non-zero: $(cat "$tmp/plan.err")"
grep -q "planned cordon node/$node" "$tmp/plan.out" || fail "no planned cordon: $(cat "$tmp/plan.out")"
since "$m" "$tmp/plan.jsonl"

# --- Server-side dry run ----------------------------------------------------------------------
m=$(mark)
"$bin" operate "${ops[@]}" --once --server-dry-run >"$tmp/sdr.out" 2>"$tmp/sdr.err" ||
  fail "server dry run: $(cat "$tmp/sdr.err")"
grep -q "server-dry-run cordon node/$node" "$tmp/sdr.out" || fail "no dry-run cordon: $(cat "$tmp/sdr.out")"
since "$m" "$tmp/sdr.jsonl"
[ -z "$(k get node "$node" -o jsonpath='{.spec.unschedulable}')" ] || fail "the server dry run cordoned"

# --- Apply until drained and the repair ticket is out ---------------------------------------
m=$(mark)
apply_pass() {
  "$bin" operate "${ops[@]}" --once --apply --state "$tmp/state.db" --leader-elect \
    --lease steward-system/steward-operate --identity rbac-e2e >>"$tmp/apply.out" 2>>"$tmp/apply.err"
}
apply_pass || fail "operate --apply: $(cat "$tmp/apply.err")"
grep -q "failed drain pod/serving/.*429" "$tmp/apply.out" || fail "no 429 met: $(cat "$tmp/apply.out")"
ticket_out() {
  apply_pass && [ "$(rows get pods -n serving --field-selector spec.nodeName="$node")" = 0 ] &&
    k get events -n default -o jsonpath="{.items[*].reason}" | grep -qw RepairTicket
}
wait_until 90 "the node is drained and its repair ticket emitted" ticket_out
since "$m" "$tmp/apply.jsonl"

# --- Idle reclaim: pod annotations, Events in the pods' namespaces, evictions -----------------
# The rehearsal has no notebooks: count every sweep as reclaimable and idle (SM-active < 100 %),
# so a notice and an eviction happen within seconds.
m=$(mark)
"$bin" operate "${ops[@]}" --apply --interval 1 --no-stack-health --alert-tenant-share 0 \
  --reclaim-kinds training --reclaim-idle-below 1 --reclaim-notify-after 0.02 \
  --reclaim-after 0.05 >"$tmp/reclaim.out" 2>"$tmp/reclaim.err" &
reclaim_pid=$!
pids+=("$reclaim_pid")
reclaimed() { grep -q "applied reclaim-evict pod/" "$tmp/reclaim.out"; }
wait_until 60 "idle reclaim notices and evicts" reclaimed
kill -TERM "$reclaim_pid"
wait "$reclaim_pid" || fail "reclaim pass exited non-zero: $(cat "$tmp/reclaim.err")"
grep -q "applied reclaim-notice pod/" "$tmp/reclaim.out" || fail "no notice: $(cat "$tmp/reclaim.out")"
since "$m" "$tmp/reclaim.jsonl"

# --- Tidal lending: PATCH of ClusterQueues ----------------------------------------------------
# A static split above the serving queue's quota (24 vs the rehearsal's 16) reads as 8 GPUs
# lent; without a forecast (no history) the controller takes them back at once: training's
# ClusterQueue 64 -> 56, then serving's 16 -> 24. The rate is a constant: the writes are what
# this checks (tests/e2e/operate_tidal.sh reads a real counter).
m=$(mark)
cat >"$tmp/tidal.yaml" <<'YAML'
tidal: {lend_from: serving, lend_to: training}
static_split: {lend_from_gpus: 24, lend_to_gpus: 56}
prime_from_history: false
services:
  - {name: serving/chat, query: vector(10), capacity_per_replica: 20, max_replicas: 2}
YAML
"$bin" operate "${ops[@]}" --once --apply --no-stack-health --no-idle-reclaim \
  --alert-tenant-share 0 --tidal "$tmp/tidal.yaml" >"$tmp/tidal.out" 2>"$tmp/tidal.err" ||
  fail "operate --tidal: $(cat "$tmp/tidal.err")"
grep -q "applied tidal-reclaim clusterqueue/serving: .*nominal 16.* -> .*nominal 24" \
  "$tmp/tidal.out" || fail "no quota patch: $(cat "$tmp/tidal.out" "$tmp/tidal.err")"
since "$m" "$tmp/tidal.jsonl"

# --- RBAC ------------------------------------------------------------------------------------
volcano="the rehearsal scenario has no Volcano queues, so the twin serves no scheduling.volcano.sh and discovery skips them"
$check --manifests "$root/deploy/rbac-apply.yaml" --requests "$tmp/sdr.jsonl" \
  --requests "$tmp/apply.jsonl" --requests "$tmp/reclaim.jsonl" --requests "$tmp/tidal.jsonl" \
  --not-exercised "list queues.scheduling.volcano.sh: $volcano" \
  --not-exercised "watch queues.scheduling.volcano.sh: $volcano" \
  --not-exercised "list podgroups.scheduling.volcano.sh: $volcano" \
  --not-exercised "watch podgroups.scheduling.volcano.sh: $volcano" ||
  fail "rbac-apply.yaml does not match operate --apply / --server-dry-run"
$check --manifests "$root/deploy/rbac-readonly.yaml" --requests "$tmp/plan.jsonl" \
  --not-exercised "list queues.scheduling.volcano.sh: $volcano" \
  --not-exercised "watch queues.scheduling.volcano.sh: $volcano" \
  --not-exercised "list podgroups.scheduling.volcano.sh: $volcano" \
  --not-exercised "watch podgroups.scheduling.volcano.sh: $volcano" ||
  fail "rbac-readonly.yaml does not match operate's plan mode"
$check --manifests "$root/deploy/rbac-readonly.yaml" --requests "$tmp/sdr.jsonl" --expect-denied ||
  fail "the read-only role allows a server-side dry run's writes"
echo "deploy/ RBAC allows exactly operate's calls (apply, server dry run, plan mode)"
