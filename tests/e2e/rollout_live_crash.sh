#!/usr/bin/env bash
# End-to-end: `kill -9` of `steward rollout run --kubeconfig --apply` mid-batch against the
# twin's Kubernetes API, then a restart on the same --state: the run resumes from its SQLite
# snapshot and finishes; every target is on the new version, upgraded exactly once (the state's
# counts, and the cluster's version label changed once per node in the applied writes), none
# skipped, no node left cordoned, maxUnavailable kept.
set -euo pipefail
bin=${1:?usage: rollout_live_crash.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
py=/usr/bin/python3

start_kube_twin "$root/examples/rollouts/cluster.yaml" --speed 60

cat >"$tmp/plan.yaml" <<'YAML'
kind: Rollout
name: live-crash
component: driver
version: "570.86.15"
previousVersion: "550.90.07"
selector: {steward.io/pool: h100}
maxParallel: 2
maxUnavailable: 3
soak: 1s
restartTime: 1s
checkpointGrace: 2s
evictionGrace: 1s
batches:
  - {name: canary, size: 2}
  - {name: half, percent: 50}
  - {name: rest, rest: true}
gates:
  - {name: gpus, metric: schedulable_gpus, successCondition: "result >= 0.95"}
  - {name: validator, metric: validator_pass_rate, successCondition: "result == 1"}
YAML

status_field() {
  "$bin" rollout status --state "$tmp/live.db" --json 2>/dev/null |
    "$py" -c "import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1], {}, {'s': s}))" "$1" \
    2>/dev/null || true
}

"$bin" rollout run "$tmp/plan.yaml" --kubeconfig "$kc" --apply --state "$tmp/live.db" \
  --interval 0.3 >"$tmp/first.out" 2>"$tmp/first.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 1 600); do
  [ "$(status_field "s['current_batch'] == 1 and s['nodes_upgraded'] >= 3")" = True ] && break
  kill -0 "$pid" 2>/dev/null || fail "the rollout ended before the kill: $(tail -3 "$tmp/first.err")"
  sleep 0.1
done
kill -KILL "$pid" || fail "not running at the kill"
wait "$pid" 2>/dev/null || true
[ "$(status_field "s['state']")" = running ] || fail "killed after it finished"
killed_at=$(status_field "s['nodes_upgraded']")

"$bin" rollout run "$tmp/plan.yaml" --kubeconfig "$kc" --apply --state "$tmp/live.db" \
  --interval 0.2 >"$tmp/second.out" 2>"$tmp/second.err" ||
  fail "restart: $(tail -5 "$tmp/second.err")"
"$bin" rollout status --state "$tmp/live.db" --json >"$tmp/status.json"
cat "$tmp/first.out" "$tmp/second.out" >"$tmp/applied.out"
"$py" - "$tmp/status.json" "$tmp/applied.out" "$killed_at" <<'PY' || fail "after the restart"
import json, re, sys
from collections import Counter
s = json.load(open(sys.argv[1]))
assert s["state"] == "succeeded", s["state"]
assert s["nodes_upgraded"] == 16 and len(s["nodes"]) == 16, s["nodes_upgraded"]
assert all(n["upgrades"] == 1 for n in s["nodes"]), [n for n in s["nodes"] if n["upgrades"] != 1]
assert s["max_unavailable_seen"] <= 3, s["max_unavailable_seen"]
assert [d["seq"] for d in s["log"]] == list(range(len(s["log"])))
assert 3 <= int(sys.argv[3]) < 16
# The version label changed (before != after) once per node across both processes.
changes = Counter()
for line in open(sys.argv[2]):
    m = re.search(r"applied label node/(\S+): steward.io/gpu-driver-version(=\S+| unset) -> steward.io/gpu-driver-version=(\S+)", line)
    if m and m.group(2) != "=" + m.group(3):
        changes[m.group(1)] += 1
assert len(changes) == 16 and set(changes.values()) == {1}, changes
PY
for n in $(k get nodes -l steward.io/pool=h100 -o name); do
  [ "$(k get "$n" -o jsonpath='{.metadata.labels.steward\.io/gpu-driver-version}')" = 570.86.15 ] ||
    fail "$n not upgraded"
  [ "$(k get "$n" -o jsonpath='{.spec.unschedulable}')" = "" ] || fail "$n left cordoned"
done
echo "rollout live crash: ok"
