#!/usr/bin/env bash
# End-to-end: `steward policy simulate --kubeconfig` against the twin served as a Kubernetes API
# (examples/kube/rehearsal.yaml: three teams' ClusterQueues, research's 8-GPU sweeps asking for
# more than its 16-GPU quota). The cluster read must give the same simulation as kubectl's YAML
# dump of the same kinds fed to `policy simulate FILE`; it must see every Workload the
# python3-kubernetes client lists; a ClusterQueue given in a file must replace the cluster's
# (research's quota raised: the waiting sweeps are admitted); the cluster must only be read
# (the front's request log holds GETs only from the simulator); a bad kubeconfig and an
# unreachable server fail naming them.
set -euo pipefail
bin=${1:?usage: policy_simulate_kubeconfig.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
source "$root/tests/e2e/lib/kube.sh"

start_kube_twin "$root/examples/kube/rehearsal.yaml" --kube-request-log "$tmp/requests.log"
wait_until 30 "Workloads exist" bash -c "[ \$('$kubectl' --kubeconfig '$kc' get workloads.kueue.x-k8s.io -A --no-headers 2>/dev/null | wc -l) -ge 8 ]"

# The twin runs on: simulate the cluster between two dumps (retried until the dumps agree).
simulate_cluster_against_dump
cmp "$tmp/cluster.json" "$tmp/files_before.json" ||
  fail "the cluster read and kubectl's dump simulate differently: $(diff "$tmp/cluster.json" "$tmp/files_before.json" | head -20)"

# Every Workload python3-kubernetes lists is simulated; research's sweeps wait for quota.
$py - "$kc" "$tmp/cluster.json" <<'PY'
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
api = client.CustomObjectsApi()
listed = api.list_cluster_custom_object("kueue.x-k8s.io", "v1beta1", "workloads")["items"]
names = sorted((w["metadata"]["namespace"], w["metadata"]["name"]) for w in listed)
sim = json.load(open(sys.argv[2]))
got = sorted((w["namespace"], w["name"]) for w in sim["workloads"])
assert names == got, ("listed", names, "simulated", got)
research = [w for w in sim["workloads"] if w["namespace"] == "research"]
admitted = [w for w in research if w["state"] == "admitted"]
pending = [w for w in research if w["state"] == "pending"]
assert len(admitted) == 2 and len(pending) >= 1, research
q = {c["name"]: c for c in sim["cluster_queues"]}
usage = sum(r for f in q["research"]["usage"].values() for r in f.values())
assert usage == 16, q["research"]
print("simulated", len(got), "workloads:", len(admitted), "research sweeps admitted,",
      len(pending), "pending")
PY

# A proposed quota: research's ClusterQueue with 64 GPUs, laid over the live state.
k get clusterqueues.kueue.x-k8s.io research -o yaml >"$tmp/research.yaml"
$py - "$tmp/research.yaml" <<'PY'
import sys, yaml
path = sys.argv[1]
cq = yaml.safe_load(open(path))
for g in cq["spec"]["resourceGroups"]:
    for f in g["flavors"]:
        for r in f["resources"]:
            if r["name"] == "nvidia.com/gpu":
                r["nominalQuota"] = 64
yaml.safe_dump(cq, open(path, "w"))
PY
"$bin" policy simulate --kubeconfig "$kc" "$tmp/research.yaml" --json >"$tmp/raised.json" \
  2>"$tmp/raised.err" || fail "simulate with a file failed: $(cat "$tmp/raised.err")"
grep -q "ClusterQueue research from the files replaces the cluster's" "$tmp/raised.err" ||
  fail "no note on the replaced ClusterQueue: $(cat "$tmp/raised.err")"
$py - "$tmp/cluster.json" "$tmp/raised.json" <<'PY'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
def admitted(sim):
    return [w for w in sim["workloads"] if w["namespace"] == "research" and w["state"] == "admitted"]
assert len(admitted(after)) > len(admitted(before)), (admitted(before), admitted(after))
q = {c["name"]: c for c in after["cluster_queues"]}
assert sum(r for f in q["research"]["nominal"].values() for r in f.values()) == 64, q["research"]
PY
# Text output from the cluster too.
"$bin" policy simulate --kubeconfig "$kc" >"$tmp/cluster.txt" 2>/dev/null ||
  fail "text output failed"
grep -q "research/.* pending" "$tmp/cluster.txt" || fail "no pending sweep in: $(cat "$tmp/cluster.txt")"

# Read only: every request the simulator made is a read.
$py - "$tmp/requests.log" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mine = [e for e in events if e.get("userAgent", "").startswith("steward-simulate")]
assert mine, "the request log holds no request of the simulator"
verbs = sorted({e["verb"] for e in mine})
assert set(verbs) <= {"get", "list"}, verbs
print("simulator requests:", len(mine), "verbs", verbs)
PY

# A kubeconfig that does not exist, and a server that is not there: errors naming them.
rc=0; "$bin" policy simulate --kubeconfig "$tmp/no-such-kubeconfig" 2>"$tmp/bad.err" >/dev/null || rc=$?
[ "$rc" = 1 ] || fail "bad kubeconfig: exit $rc, want 1"
grep -q "$tmp/no-such-kubeconfig" "$tmp/bad.err" || fail "message does not name the path: $(cat "$tmp/bad.err")"
sed "s|server: .*|server: http://127.0.0.1:1|" "$kc" >"$tmp/dead.kc"
rc=0; timeout 120 "$bin" policy simulate --kubeconfig "$tmp/dead.kc" 2>"$tmp/dead.err" >/dev/null || rc=$?
[ "$rc" = 1 ] || fail "unreachable server: exit $rc, want 1"
grep -q "127.0.0.1:1" "$tmp/dead.err" || fail "message does not name the server: $(cat "$tmp/dead.err")"
# Neither files nor a cluster: a usage error.
rc=0; "$bin" policy simulate 2>"$tmp/none.err" >/dev/null || rc=$?
[ "$rc" != 0 ] || fail "no input accepted"
echo "policy simulate --kubeconfig e2e: ok"
