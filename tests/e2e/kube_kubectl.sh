#!/usr/bin/env bash
# End-to-end: the image's kubectl drives the twin's Kubernetes API (`steward serve --kube-port 0
# --kubeconfig-out`) through the guide's runbooks on examples/kube/rehearsal.yaml (16 nodes x 8
# H100): reads in every output form, cordon/uncordon, label, taint, server-side dry runs, a
# ClusterQueue quota patch, drains that meet a PodDisruptionBudget and keep checkpointed work,
# and a bounded watch. After every write the twin's own JSON API must agree.
set -euo pipefail
bin=${1:?usage: kube_kubectl.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
# KUBECTL=/path/to/another/kubectl runs the same checks with another client (e.g. Debian's 1.20).
source "$root/tests/e2e/lib/kube.sh"
json() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }
# Reads all of stdin before matching, so a writer never dies of SIGPIPE under pipefail.
has() {
  local text
  text=$(cat)
  grep -Eq -- "$1" <<<"$text"
}

# 60 simulated seconds per second: a container starts in 1.5 s, the horizon is far away.
start_kube_twin "$root/examples/kube/rehearsal.yaml" --speed 60
echo "kubectl $("$kubectl" version --client -o json | json 'print(d["clientVersion"]["gitVersion"])') against $kube_url"

# --- Reads -------------------------------------------------------------------------------------
all_admitted() { [ "$(k get workloads -A --no-headers | awk '$5 == "True"' | wc -l)" = 9 ]; }
wait_until 60 "the 6 training and 2 research jobs and the service are admitted" all_admitted
ten_running() {
  [ "$(rows get pods -A --field-selector status.phase=Running,metadata.namespace!=gpu-operator)" = 10 ]
}
wait_until 60 "their 10 pods run" ten_running

[ "$(rows get nodes)" = 16 ] || fail "get nodes: $(k get nodes)"
k get nodes | sed -n 1p | has '^NAME +STATUS +ROLES +AGE +VERSION$' || fail "node columns"
k get nodes -o wide | sed -n 1p | has 'INTERNAL-IP' || fail "get nodes -o wide"
k get nodes -o json | json '
n = d["items"]; assert d["kind"] == "List" and len(n) == 16, len(n)
for x in n:
    assert x["status"]["capacity"]["nvidia.com/gpu"] == "8", x["status"]["capacity"]
    assert x["metadata"]["labels"]["nvidia.com/gpu.product"] == "NVIDIA-H100-80GB-HBM3"
    assert any(c["type"] == "Ready" and c["status"] == "True" for c in x["status"]["conditions"])
' || fail "get nodes -o json"
[ "$(rows get nodes -l nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3)" = 16 ] || fail "-l equality"
[ "$(rows get nodes -l 'nvidia.com/gpu.count in (4,16)')" = 0 ] || fail "-l in () matched"
[ "$(rows get nodes -l '!nvidia.com/gpu.product')" = 0 ] || fail "-l !key matched"
[ "$(rows get nodes --field-selector metadata.name=h100-0003)" = 1 ] || fail "node field selector"

# GPU pods: 2 service replicas + 6 training + 2 research; the GPU Operator's DaemonSets too.
gpu_pods() { k get pods -A -o json | json '
print(sum(1 for p in d["items"] if any("nvidia.com/gpu" in c["resources"].get("requests", {})
                                       for c in p["spec"]["containers"])))'; }
[ "$(gpu_pods)" = 10 ] || fail "GPU pods: $(gpu_pods)"
k get pods -A | sed -n 1p | has '^NAMESPACE +NAME +READY +STATUS +RESTARTS +AGE$' ||
  fail "pod columns: $(k get pods -A | head -1)"
k get pods -A -o wide | sed -n 1p | has 'NODE' || fail "get pods -o wide"
[ "$(rows get pods -n training -l kueue.x-k8s.io/queue-name=training)" = 6 ] || fail "pods -l"
[ "$(rows get pods -A --field-selector status.phase=Running,metadata.namespace=research)" = 2 ] ||
  fail "pods --field-selector phase+namespace"
k get pods -n training -o json | json '
for p in d["items"]:
    o = p["metadata"]["ownerReferences"][0]
    assert o["kind"] == "Job" and o["controller"] is True, o
    assert p["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert p["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "training"
    assert p["status"]["phase"] == "Running" and p["spec"]["nodeName"]
' || fail "training pods -o json"
node_of() { k get pods -n "$1" -l "$2" -o jsonpath='{.items[0].spec.nodeName}'; }

k get clusterqueues | sed -n 1p | has 'PENDING WORKLOADS' || fail "clusterqueue columns"
k get clusterqueue research -o json | json '
assert d["status"]["pendingWorkloads"] == 4, d["status"]
assert d["status"]["admittedWorkloads"] == 2, d["status"]' || fail "research ClusterQueue status"
k get localqueues -A | has '^research +research +research +4 +2' || fail "localqueues: $(k get localqueues -A)"
k get workloads -A -o json | json '
p = [w for w in d["items"] if not w["status"].get("admission")]
assert len(p) == 4, len(p)
m = []
for w in p:
    c = {x["type"]: x for x in w["status"]["conditions"]}["QuotaReserved"]
    assert c["status"] == "False" and c["reason"] == "Pending", c
    m.append(c["message"])
m.sort()
assert m[0].startswith("insufficient unused quota: its team uses 16 of its 16-GPU quota; needs 8"), m
assert all("(Steward pending reason: waiting_in_queue)" in x for x in m[1:]), m
' || fail "pending workloads"
[ "$(rows get events -A --field-selector reason=Admitted)" -ge 9 ] || fail "Admitted events"
k get --raw /api | json 'assert d["kind"] == "APIVersions" and d["versions"] == ["v1"]' ||
  fail "get --raw /api"
k get --raw /apis/kueue.x-k8s.io/v1beta1 | json '
assert "clusterqueues" in [r["name"] for r in d["resources"]]' || fail "kueue discovery"

# --- Cordon, label, taint (dry run first) ------------------------------------------------------
# Nodes without GPU pods, in name order: the first is cordoned, the second tainted.
free_nodes=($(k get pods -A -o json | json '
busy = {p["spec"]["nodeName"] for p in d["items"] if p["metadata"]["namespace"] != "gpu-operator"}
print(" ".join(sorted({p["spec"]["nodeName"] for p in d["items"]} - busy)))'))
[ "${#free_nodes[@]}" -ge 6 ] || fail "expected at least 6 free nodes, got ${free_nodes[*]}"
cordoned=${free_nodes[0]} tainted=${free_nodes[1]}
unschedulable() { k get node "$1" -o jsonpath='{.spec.unschedulable}'; }
dash_node() { curl -sf "$dash_url/api/nodes/$1" | json "print(str(d['$2']).lower())"; }

k cordon "$cordoned" --dry-run=server | has "cordoned \(server dry run\)" || fail "cordon dry run"
[ -z "$(unschedulable "$cordoned")" ] || fail "a dry-run cordon cordoned"
[ "$(dash_node "$cordoned" cordoned)" = false ] || fail "a dry-run cordon reached the twin"
k cordon "$cordoned" | has "cordoned" || fail "cordon"
[ "$(unschedulable "$cordoned")" = true ] || fail "cordon did not set spec.unschedulable"
[ "$(dash_node "$cordoned" cordoned)" = true ] || fail "cordon through the API is not a twin cordon"
k get node "$cordoned" | has 'Ready,SchedulingDisabled' || fail "STATUS of a cordoned node"

k label node "$tainted" steward.test/runbook=xid79 | has labeled || fail "label node"
[ "$(rows get nodes -l steward.test/runbook=xid79)" = 1 ] || fail "label not selectable"
[ "$(rows get nodes -l 'steward.test/runbook notin (xid79)')" = 15 ] || fail "-l notin"
k taint node "$tainted" steward.test/maintenance=true:NoSchedule | has tainted || fail "taint"
k get node "$tainted" -o json | json '
assert {"key": "steward.test/maintenance", "value": "true", "effect": "NoSchedule"} in d["spec"]["taints"], d["spec"]' ||
  fail "taint not in spec.taints"
[ "$(dash_node "$tainted" schedulable)" = false ] || fail "a NoSchedule taint leaves the twin node schedulable"

# --- Quota patch: research gets 48 GPUs; its 4 pending jobs are admitted at once ---------------
patch='{"spec":{"resourceGroups":[{"coveredResources":["nvidia.com/gpu"],"flavors":[{"name":"default-flavor","resources":[{"name":"nvidia.com/gpu","nominalQuota":48}]}]}]}}'
k patch clusterqueue research --type merge -p "$patch" --dry-run=server | has "patched" ||
  fail "patch dry run"
sleep 1
[ "$(k get clusterqueue research -o jsonpath='{.status.pendingWorkloads}')" = 4 ] ||
  fail "a dry-run quota patch changed admission"
k patch clusterqueue research --type merge -p "$patch" | has "patched" || fail "patch clusterqueue"
[ "$(k get clusterqueue research -o jsonpath='{.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota}')" = 48 ] ||
  fail "quota not in spec"
research_admitted() { [ "$(k get clusterqueue research -o jsonpath='{.status.admittedWorkloads}')" = 6 ]; }
wait_until 30 "the quota patch admits research's pending jobs" research_admitted
research_running() { [ "$(rows get pods -n research --field-selector status.phase=Running)" = 6 ]; }
wait_until 30 "research's 6 pods run" research_running
[ "$(rows get pods -A --field-selector spec.nodeName="$cordoned",metadata.namespace!=gpu-operator)" = 0 ] ||
  fail "the cordoned node took new pods"
[ "$(rows get pods -A --field-selector spec.nodeName="$tainted",metadata.namespace!=gpu-operator)" = 0 ] ||
  fail "the tainted node took new pods"

k uncordon "$cordoned" | has uncordoned || fail "uncordon"
[ -z "$(unschedulable "$cordoned")" ] || fail "uncordon left spec.unschedulable"
[ "$(dash_node "$cordoned" cordoned)" = false ] || fail "uncordon did not reach the twin"
k taint node "$tainted" steward.test/maintenance- | has untainted || fail "untaint"
[ "$(dash_node "$tainted" schedulable)" = true ] || fail "untaint did not reach the twin"

# --- A bounded watch of all pods across the drains ---------------------------------------------
timeout 25 "$kubectl" --kubeconfig "$kc" get pods -A --watch --output-watch-events --no-headers \
  >"$tmp/watch.txt" 2>"$tmp/watch.err" &
watch_pid=$!
pids+=($watch_pid)
sleep 1

# --- Drain a training node: the checkpointing job keeps its work (8 GPUs x 6 min restore) ------
train_node=$(node_of training kueue.x-k8s.io/queue-name=training)
train_pod=$(k get pods -n training --field-selector spec.nodeName="$train_node" -o jsonpath='{.items[0].metadata.name}')
train_job=$(k get pod -n training "$train_pod" -o jsonpath='{.metadata.ownerReferences[0].name}')
k drain "$train_node" --ignore-daemonsets --delete-emptydir-data --timeout 60s >"$tmp/drain1.txt" 2>&1 ||
  fail "drain $train_node: $(cat "$tmp/drain1.txt")"
grep -q "node/$train_node drained" "$tmp/drain1.txt" || fail "drain output: $(cat "$tmp/drain1.txt")"
[ "$(rows get pods -A --field-selector spec.nodeName="$train_node",metadata.namespace!=gpu-operator)" = 0 ] ||
  fail "pods left on the drained node"
k get events -n training --field-selector reason=Evicted -o json | json "
m = [e['message'] for e in d['items'] if e['involvedObject']['name'].startswith('job-$train_job-')]
assert len(m) == 1, m
assert '0.80 GPU-hours of work lost' in m[0], m[0]" || fail "no Evicted event keeping the checkpoint"
requeued() { [ "$(k get pods -n training -l kueue.x-k8s.io/queue-name=training --field-selector status.phase=Running -o name | wc -l)" = 6 ]; }
wait_until 30 "the drained training job runs again elsewhere" requeued
[ "$(rows get pods -A --field-selector spec.nodeName="$train_node",metadata.namespace!=gpu-operator)" = 0 ] ||
  fail "the drained (cordoned) node took pods"

# --- Drain the service's node: its PodDisruptionBudget (maxUnavailable 1) lets one replica go at
# a time, so the second eviction meets a 429 until the replacement runs ---------------------------
k get pdb -n serving -o json | json '
s = d["items"][0]["status"]
assert s["disruptionsAllowed"] == 1 and s["currentHealthy"] == 2, s' || fail "PDB status"
chat_node=$(node_of serving steward.io/workload=chat-000000)
[ "$(rows get pods -n serving --field-selector spec.nodeName="$chat_node")" = 2 ] ||
  fail "expected both replicas on $chat_node (first-fit)"
k drain "$chat_node" --ignore-daemonsets --delete-emptydir-data --timeout 90s >"$tmp/drain2.txt" 2>&1 ||
  fail "drain $chat_node: $(cat "$tmp/drain2.txt")"
grep -q "would violate the pod's disruption budget" "$tmp/drain2.txt" ||
  fail "the PDB never refused an eviction: $(cat "$tmp/drain2.txt")"
[ "$(grep -c ' evicted$' "$tmp/drain2.txt")" = 2 ] || fail "both replicas evicted: $(cat "$tmp/drain2.txt")"
grep -q "node/$chat_node drained" "$tmp/drain2.txt" || fail "drain output: $(cat "$tmp/drain2.txt")"
service_back() { [ "$(rows get pods -n serving --field-selector status.phase=Running)" = 2 ]; }
wait_until 30 "the service runs two replicas again" service_back

# --- The watch saw the drains as events ---------------------------------------------------------
wait "$watch_pid" || true
grep -q "^DELETED .*$train_pod" "$tmp/watch.txt" || fail "watch missed the training pod's deletion: $(head "$tmp/watch.txt")"
[ "$(grep -c '^ADDED ' "$tmp/watch.txt")" -ge 20 ] || fail "watch missed the initial pods"
[ "$(grep -c '^DELETED ' "$tmp/watch.txt")" -ge 3 ] || fail "watch missed deletions"
echo "kubectl drove the twin: reads, cordon, label, taint, dry runs, quota patch, drains, watch"
