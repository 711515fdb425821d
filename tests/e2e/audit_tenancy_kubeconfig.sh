#!/usr/bin/env bash
# End-to-end: `steward audit tenancy --kubeconfig` against the twin served as a Kubernetes API
# (examples/tenancy/scenario.yaml). The twin serves nodes, pods, namespaces, configmaps, PDBs
# and Kueue objects but no RBAC, NetworkPolicies, ResourceQuotas or LimitRanges: the cluster
# audit must find what the served kinds show (the same findings as `steward audit tenancy` on
# kubectl dumps of those kinds), name the unserved kinds as not read in all three formats,
# skip the checks that need them, keep --fail-on's exit codes, and exit 2 naming a bad
# kubeconfig path. Files given with the cluster cover the kinds it does not serve.
set -euo pipefail
bin=${1:?usage: audit_tenancy_kubeconfig.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
source "$root/tests/e2e/lib/kube.sh"
ex="$root/examples/tenancy"

start_kube_twin "$ex/scenario.yaml"

# The served kinds dumped with kubectl, audited as files.
dump_and_audit() {  # OUT.json
  k get namespaces,nodes,pods,configmaps,poddisruptionbudgets -A -o json >"$tmp/core.json"
  k get resourceflavors.kueue.x-k8s.io,clusterqueues.kueue.x-k8s.io,localqueues.kueue.x-k8s.io,cohorts.kueue.x-k8s.io,workloadpriorityclasses.kueue.x-k8s.io \
    -A -o json >"$tmp/kueue.json"
  "$bin" audit tenancy "$tmp/core.json" "$tmp/kueue.json" --json --fail-on never >"$1" ||
    fail "audit of the kubectl dumps failed"
}
# The twin runs on (pods come and go): audit the cluster between two dumps and retry until the
# dumps agree.
ok=
for attempt in 1 2 3 4 5; do
  dump_and_audit "$tmp/files_before.json"
  "$bin" audit tenancy --kubeconfig "$kc" --json --fail-on never >"$tmp/cluster.json" \
    2>"$tmp/cluster.err" || fail "cluster audit failed: $(cat "$tmp/cluster.err")"
  dump_and_audit "$tmp/files_after.json"
  if $py - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
key = lambda f: (f["id"], f["tenant"], tuple(f["objects"]), f["message"])
before = sorted(map(key, json.load(open(f"{tmp}/files_before.json"))["findings"]))
after = sorted(map(key, json.load(open(f"{tmp}/files_after.json"))["findings"]))
sys.exit(0 if before == after else 1)
PY
  then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ] || fail "the twin's objects kept changing between dumps"

$py - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
cluster = json.load(open(f"{tmp}/cluster.json"))
files = json.load(open(f"{tmp}/files_before.json"))
key = lambda f: (f["id"], f["tenant"], tuple(f["objects"]), f["message"])

# The unserved kinds are named as not read, with a reason.
not_read = {u["kind"]: u["reason"] for u in cluster["not_read"]}
for kind in ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "NetworkPolicy",
             "ResourceQuota", "LimitRange"]:
    assert kind in not_read, (kind, not_read)
    assert "not served" in not_read[kind], (kind, not_read[kind])
for kind in ["Namespace", "Node", "Pod", "ClusterQueue", "LocalQueue", "ResourceFlavor"]:
    assert kind not in not_read, (kind, not_read)

# Checks that need them did not run, and none of their findings appear.
not_run = {c["id"] for c in cluster["checks_not_run"]}
for layer in ["rbac.", "network."]:
    ids = [c for c in not_run if c.startswith(layer)]
    assert len(ids) >= 3, (layer, not_run)
assert "quota.gpu-unbounded" in not_run, not_run
assert not [f for f in cluster["findings"] if f["id"] in not_run], cluster["findings"]
assert cluster["summary"]["checks_run"] == cluster["summary"]["checks"] - len(not_run)
incomplete = {c["id"]: c["missing"] for c in cluster["checks_incomplete"]}
assert incomplete.get("quota.pool-overcommitted") == ["ResourceQuota"], incomplete

# The checks that ran find what the kubectl dumps of the served kinds show.
want = sorted(key(f) for f in files["findings"] if f["id"] not in not_run)
got = sorted(key(f) for f in cluster["findings"])
assert got == want, ("cluster", got, "files", want)
# The planted violations the served kinds carry: team-b's untainted pool, the shared flavor.
ids = {(f["id"], f["tenant"]) for f in cluster["findings"]}
assert ("nodes.gpu-pool-untainted", "team-b") in ids, ids
assert any(i == "nodes.flavor-reaches-other-pool" for i, _ in ids), ids
# Objects from the API carry no file location.
assert all(not f["locations"] for f in cluster["findings"]), cluster["findings"]
print("cluster audit:", len(got), "findings,", len(not_read), "kinds not read,",
      len(not_run), "checks not run")
PY
grep -q "scheduling.volcano.sh is not installed" "$tmp/cluster.err" ||
  fail "no note on the uninstalled Volcano group: $(cat "$tmp/cluster.err")"

# Table and SARIF say the same; exit codes follow --fail-on (the cluster has a critical
# finding, as its kubectl dump has).
rc=0; "$bin" audit tenancy --kubeconfig "$kc" >"$tmp/table.txt" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "default --fail-on critical: exit $rc, want 1"
grep -q "NOT READ" "$tmp/table.txt" || fail "table has no NOT READ section: $(cat "$tmp/table.txt")"
grep -Eq "^  RoleBinding +not served" "$tmp/table.txt" || fail "table does not name RoleBinding"
grep -Eq "not run +rbac.cluster-admin" "$tmp/table.txt" || fail "table does not say rbac.cluster-admin did not run"
rc=0; "$bin" audit tenancy --kubeconfig "$kc" --sarif --fail-on never >"$tmp/out.sarif" 2>/dev/null || rc=$?
[ "$rc" = 0 ] || fail "--fail-on never: exit $rc, want 0"
rc=0; "$bin" audit tenancy --kubeconfig "$kc" --fail-on warning >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--fail-on warning: exit $rc, want 1"
rc=0; "$bin" audit tenancy "$tmp/core.json" "$tmp/kueue.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "the kubectl dumps: exit $rc, want 1 like the cluster"
$py - "$tmp/out.sarif" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
inv = run["invocations"][0]
assert inv["executionSuccessful"] is True
assert "RoleBinding" in {u["kind"] for u in inv["properties"]["notRead"]}, inv["properties"]
texts = [n["message"]["text"] for n in inv["toolExecutionNotifications"]]
assert any(t.startswith("NetworkPolicy not read") for t in texts), texts
rules = {n["associatedRule"]["id"] for n in inv["toolExecutionNotifications"] if "associatedRule" in n}
assert "rbac.wildcard" in rules, rules
assert not [r for r in run["results"] if r["ruleId"].startswith("rbac.")]
PY

# Files with the cluster: the files' RBAC, policies and quotas cover what the cluster does not
# serve; the RBAC and network checks run again and find the example's planted violations.
"$bin" audit tenancy "$ex/cluster/rbac.yaml" "$ex/cluster/networkpolicies.yaml" \
  "$ex/cluster/quotas.yaml" --kubeconfig "$kc" --json --fail-on never >"$tmp/mixed.json" \
  2>"$tmp/mixed.err" || fail "files + cluster failed: $(cat "$tmp/mixed.err")"
$py - "$tmp/mixed.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["not_read"] == [], j["not_read"]
assert j["checks_not_run"] == [] and j["checks_incomplete"] == [], j
ids = {f["id"] for f in j["findings"]}
assert "rbac.cluster-admin" in ids and any(i.startswith("network.") for i in ids), ids
PY
grep -q "RoleBinding not read from the cluster" "$tmp/mixed.err" || fail "no note on RBAC from files"

# A kubeconfig that does not exist: exit 2 naming it.
rc=0; "$bin" audit tenancy --kubeconfig "$tmp/no-such-kubeconfig" 2>"$tmp/bad.err" >/dev/null || rc=$?
[ "$rc" = 2 ] || fail "bad kubeconfig: exit $rc, want 2"
grep -q "$tmp/no-such-kubeconfig" "$tmp/bad.err" || fail "message does not name the path: $(cat "$tmp/bad.err")"
# A server that is not there: exit 2 naming it.
sed "s|server: .*|server: http://127.0.0.1:1|" "$kc" >"$tmp/dead.kc"
rc=0; timeout 120 "$bin" audit tenancy --kubeconfig "$tmp/dead.kc" 2>"$tmp/dead.err" >/dev/null || rc=$?
[ "$rc" = 2 ] || fail "unreachable server: exit $rc, want 2"
grep -q "127.0.0.1:1" "$tmp/dead.err" || fail "message does not name the server: $(cat "$tmp/dead.err")"
echo "audit tenancy --kubeconfig e2e: ok"
