#!/usr/bin/env bash
# End-to-end: `steward twin snapshot` of the twin served as a Kubernetes API
# (examples/kube/rehearsal.yaml: 16 nodes x 8 H100, three teams under fifo-quota's per-team
# ClusterQueues, research asking for more than its 16-GPU quota). The written scenario must
# validate, run from the cluster's state (same nodes and GPUs as kubectl sees, the running
# owners running, the waiting Kueue Workloads waiting), and `twin compare` with research's
# ClusterQueue quota raised in the written policy file must admit the waiting sweeps.
set -euo pipefail
bin=${1:?usage: twin_snapshot.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
source "$root/tests/e2e/lib/kube.sh"

start_kube_twin "$root/examples/kube/rehearsal.yaml"
# Wait until the twin has placed its first pods (every generator arrives at 0 s).
wait_until 30 "GPU pods exist" bash -c "[ \$('$kubectl' --kubeconfig '$kc' get pods -n training --no-headers 2>/dev/null | wc -l) -ge 6 ]"

"$bin" twin snapshot --kubeconfig "$kc" -o "$tmp/snap" >"$tmp/snap.log" 2>&1 ||
  fail "snapshot failed: $(cat "$tmp/snap.log")"
cat "$tmp/snap.log"
for f in scenario.yaml workloads.csv kueue.yaml; do
  [ -s "$tmp/snap/$f" ] || fail "snapshot wrote no $f"
done

# What kubectl sees: nodes, GPUs, running GPU workloads (one per owner; a ReplicaSet counts as
# its Deployment) and the Kueue Workloads waiting without pods.
k get nodes -o json >"$tmp/nodes.json"
k get pods -A -o json >"$tmp/pods.json"
k get workloads.kueue.x-k8s.io -A -o json >"$tmp/workloads.json"
read -r nodes gpus running waiting < <($py - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
nodes = json.load(open(f"{d}/nodes.json"))["items"]
gpus = sum(int(n["status"]["capacity"].get("nvidia.com/gpu", 0)) for n in nodes)
owners = set()
for p in json.load(open(f"{d}/pods.json"))["items"]:
    req = sum(int(c.get("resources", {}).get("requests", {}).get("nvidia.com/gpu", 0))
              for c in p["spec"]["containers"])
    if req == 0 or p["status"].get("phase") in ("Succeeded", "Failed"):
        continue
    if p["metadata"].get("deletionTimestamp"):
        continue
    o = (p["metadata"].get("ownerReferences") or [{"kind": "", "name": p["metadata"]["name"]}])[0]
    name, h = o["name"], p["metadata"].get("labels", {}).get("pod-template-hash")
    if o["kind"] == "ReplicaSet" and h and name.endswith("-" + h):
        name = name[: -len(h) - 1]
    owners.add((p["metadata"]["namespace"], name))
waiting = 0
for w in json.load(open(f"{d}/workloads.json"))["items"]:
    ns = w["metadata"]["namespace"]
    owner = w["metadata"]["ownerReferences"][0]["name"]
    done = any(c["type"] == "Finished" and c["status"] == "True"
               for c in w.get("status", {}).get("conditions", []))
    if not done and (ns, owner) not in owners:
        waiting += 1
print(len(nodes), gpus, len(owners), waiting)
PY
)
echo "kubectl: $nodes nodes, $gpus GPUs, $running running GPU workloads, $waiting waiting"
[ "$running" -ge 9 ] && [ "$waiting" -ge 1 ] || fail "the served cluster is not in the expected state"
grep -q "$nodes nodes, $gpus GPUs" "$tmp/snap.log" || fail "snapshot counts differ from kubectl"
grep -q "$running running and $waiting waiting workloads" "$tmp/snap.log" ||
  fail "snapshot workloads differ from kubectl ($running running, $waiting waiting)"

# The scenario validates and runs from the cluster's state.
"$bin" twin validate "$tmp/snap/scenario.yaml" || fail "the snapshot does not validate"
"$bin" twin run "$tmp/snap/scenario.yaml" --json >"$tmp/run.json" || fail "twin run failed"
$py - "$tmp/run.json" "$nodes" "$gpus" "$running" "$waiting" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
nodes, gpus, running, waiting = map(int, sys.argv[2:])
assert r["total_nodes"] == nodes, (r["total_nodes"], nodes)
assert r["total_gpus"] == gpus, (r["total_gpus"], gpus)
w = r["workloads"]
assert w["submitted"] == running + waiting, (w, running, waiting)
# Every workload runs for the whole horizon: the running ones keep running, the waiting ones
# still wait for research's quota, as in the cluster.
assert w["running"] == running and w["pending"] == waiting and w["completed"] == 0, w
assert r["scheduler"]["cluster_queues"], "no ClusterQueues in the run"
PY

# Raise research's ClusterQueue quota in a copy of the written policy: the waiting sweeps get in.
$py - "$tmp/snap/kueue.yaml" "$tmp/more-research.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
hit = 0
for d in docs:
    if d["kind"] == "ClusterQueue" and d["metadata"]["name"] == "research":
        for g in d["spec"]["resourceGroups"]:
            for f in g["flavors"]:
                for r in f["resources"]:
                    if r["name"] == "nvidia.com/gpu":
                        r["nominalQuota"] = 64
                        hit += 1
assert hit == 1, hit
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))
PY
"$bin" twin compare "$tmp/snap/scenario.yaml" --vs-policy "$tmp/more-research.yaml" --json \
  >"$tmp/compare.json" || fail "twin compare failed"
$py - "$tmp/compare.json" "$waiting" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
waiting = int(sys.argv[2])
b, a = j["before"]["report"], j["after"]["report"]
assert b["workloads"]["pending"] == waiting, b["workloads"]
assert a["workloads"]["pending"] < waiting, a["workloads"]
assert a["workloads"]["running"] > b["workloads"]["running"], (a["workloads"], b["workloads"])
wb = b["queue_wait_seconds_by_team"]["research"]["p99"]
wa = a["queue_wait_seconds_by_team"]["research"]["p99"]
assert wa < wb, (wa, wb)
assert a["allocation_rate"] > b["allocation_rate"]
PY

# Errors, never crashes: an unreachable API server, an unreachable Prometheus.
printf 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n' >"$tmp/dead.kubeconfig"
if "$bin" twin snapshot --kubeconfig "$tmp/dead.kubeconfig" --timeout 3 -o "$tmp/dead" >"$tmp/dead.log" 2>&1; then
  fail "a snapshot of an unreachable cluster succeeded"
fi
grep -q "127.0.0.1:1" "$tmp/dead.log" || fail "the error does not name the server: $(cat "$tmp/dead.log")"
if "$bin" twin snapshot --kubeconfig "$kc" --prometheus http://127.0.0.1:1 -o "$tmp/p" >"$tmp/p.log" 2>&1; then
  fail "a snapshot with an unreachable Prometheus succeeded"
fi
grep -q "127.0.0.1:1" "$tmp/p.log" || fail "the error does not name Prometheus: $(cat "$tmp/p.log")"

# --- Usage profiles from DCGM history ----------------------------------------------------------
# The rehearsal again at 60x with Debian's Prometheus scraping its dcgm-exporter series: the
# training jobs run at busy 0.9 / SM-active 0.6 on all their GPUs, the sweeps at 0.8 / 0.5.
source "$root/tests/e2e/lib/prometheus.sh"
start_kube_twin "$root/examples/kube/rehearsal.yaml" --speed 60 --dcgm-interval 10
start_dcgm_prometheus
train_running() {
  [ "$(rows get pods -n training --field-selector status.phase=Running)" = 6 ]
}
wait_until 60 "the training jobs run" train_running
sleep 8  # Samples of running GPUs outweigh the start's zeros.
"$bin" twin snapshot --kubeconfig "$kc" --prometheus "$prom_url" -o "$tmp/usage" \
  >"$tmp/usage.log" 2>&1 || fail "snapshot --prometheus: $(cat "$tmp/usage.log")"
grep -q "usage profiles from DCGM history for" "$tmp/usage.log" ||
  fail "no usage note: $(cat "$tmp/usage.log")"
$py - "$tmp/usage/workloads.csv" <<'PY' || fail "usage profiles: $(cat "$tmp/usage/workloads.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def check(prefix, busy, sm):
    got = [r for r in rows if r["name"].startswith(prefix) and r["submit_seconds"] == "0"]
    assert got, prefix
    for r in got:
        assert r["used_gpu_fraction"] == "1", r
        # The start's zero samples pull the means down a little, never up.
        assert busy - 0.15 <= float(r["busy"]) <= busy + 1e-9, r
        assert sm - 0.1 <= float(r["sm_active"]) <= sm + 1e-9, r
        assert r["active_hours"] == "", r  # Computing now: not idle.
check("train-", 0.9, 0.6)
check("sweep-", 0.8, 0.5)
PY
"$bin" twin validate "$tmp/usage/scenario.yaml" >/dev/null || fail "the profiled snapshot does not validate"
echo "twin_snapshot: ok"
