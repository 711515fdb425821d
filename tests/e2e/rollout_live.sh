#!/usr/bin/env bash
# End-to-end: `steward rollout run --kubeconfig` against the twin's Kubernetes API
# (`serve --kube-port`), through live::LiveClusterControl and the write gate, as on a cluster:
#   - dry run: plans the canary's upgrade-state label, cordon and version label; writes nothing
#     (kubectl shows no label and the node schedulable; no state file);
#   - --apply with an admin-cordoned node among the targets (maxUnavailable 2): every target
#     ends on the new version with upgrade-state upgrade-done, the admin's node stays cordoned,
#     the others are uncordoned, and no more than 2 targets were ever unavailable, as seen by
#     kubectl while it ran and by the engine;
#   - the twin models the version: the driver label reaches nvidia.com/cuda.driver-version.full;
#   - GitOps: the plan lives in a Git repository; every decision records its commit; `git
#     revert` of the upgrade's commit and a new run on the same state roll every node back to
#     550.90.07 under the same budgets, recorded under the revert's commit.
set -euo pipefail
bin=${1:?usage: rollout_live.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
py=/usr/bin/python3

start_kube_twin "$root/examples/rollouts/cluster.yaml" --speed 60

# Rack 0's four nodes; timings in wall-clock seconds (the live clock). The plan is in Git: the
# first commit pins the fleet's driver, the second upgrades it.
repo="$tmp/repo"
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email e2e@steward.test
git -C "$repo" config user.name e2e
cat >"$repo/plan.yaml" <<'YAML'
kind: Rollout
name: live-driver
component: driver
version: "550.90.07"
previousVersion: "545.23.08"
selector: {steward.io/rack: rack-0}
maxParallel: 0
maxUnavailable: 2
soak: 1s
restartTime: 1s
validationTimeout: 60s
podDeletionTimeout: 60s
drainTimeout: 120s
checkpointGrace: 5s
evictionGrace: 1s
batches:
  - {name: canary, nodes: [h100-0000]}
  - {name: rest, rest: true}
gates:
  - {name: gpus, metric: schedulable_gpus, successCondition: "result >= 0.95"}
  - {name: validator, metric: validator_pass_rate, successCondition: "result == 1"}
YAML
git -C "$repo" add plan.yaml && git -C "$repo" commit -qm "driver 550.90.07"
sed -i 's/^version: .*/version: "570.86.15"/; s/^previousVersion: .*/previousVersion: "550.90.07"/' \
  "$repo/plan.yaml"
git -C "$repo" commit -qam "driver 570.86.15"
upgrade_commit=$(git -C "$repo" rev-parse HEAD)
cp "$repo/plan.yaml" "$tmp/plan.yaml"
"$bin" rollout validate "$repo/plan.yaml" >/dev/null || fail "plan invalid"

# --- Dry run ---------------------------------------------------------------------------------
"$bin" rollout run "$tmp/plan.yaml" --kubeconfig "$kc" --state "$tmp/dry.db" \
  >"$tmp/dry.out" 2>"$tmp/dry.err" || fail "dry run: $(cat "$tmp/dry.err")"
grep -q "planned label node/h100-0000.*nvidia.com/gpu-driver-upgrade-state" "$tmp/dry.out" ||
  fail "no planned upgrade-state label: $(cat "$tmp/dry.out")"
grep -q "planned cordon node/h100-0000" "$tmp/dry.out" || fail "no planned cordon"
if grep -E "planned (cordon|label|evict)" "$tmp/dry.out" | grep -v "h100-0000" | grep -q .; then
  fail "the dry run planned beyond the canary: $(cat "$tmp/dry.out")"
fi
grep -q "^decision" "$tmp/dry.err" || fail "no decisions printed"
[ ! -e "$tmp/dry.db" ] || fail "the dry run wrote a state file"
[ "$(k get node h100-0000 -o jsonpath='{.spec.unschedulable}')" = "" ] || fail "dry run cordoned"
[ "$(k get node h100-0000 -o jsonpath='{.metadata.labels.nvidia\.com/gpu-driver-upgrade-state}')" = "" ] ||
  fail "dry run labelled"

# --- Apply, with an admin-cordoned target -----------------------------------------------------
k cordon h100-0002 >/dev/null
"$bin" rollout run "$repo/plan.yaml" --kubeconfig "$kc" --apply --state "$tmp/live.db" \
  --interval 0.2 --max-evictions-per-minute 200 >"$tmp/apply.out" 2>"$tmp/apply.err" &
rollout_pid=$!
pids+=("$rollout_pid")
max_seen=0
for _ in $(seq 1 600); do
  kill -0 "$rollout_pid" 2>/dev/null || break
  n=$(k get nodes -l steward.io/rack=rack-0 -o jsonpath='{range .items[*]}{.spec.unschedulable}{"\n"}{end}' | grep -c true || true)
  [ "$n" -gt "$max_seen" ] && max_seen=$n
  sleep 0.2
done
wait "$rollout_pid" || fail "rollout --apply failed: $(tail -5 "$tmp/apply.err")"
[ "$max_seen" -le 2 ] || fail "kubectl saw $max_seen unavailable targets (maxUnavailable 2)"

"$bin" rollout status --state "$tmp/live.db" --json >"$tmp/live.json" || fail "status"
"$py" - "$tmp/live.json" "$upgrade_commit" <<'PY' || fail "live status: $(head -c 2000 "$tmp/live.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["state"] == "succeeded", s["state"]
assert s["plan_commit"] == sys.argv[2], s["plan_commit"]
assert all(d["commit"] == sys.argv[2] for d in s["log"])
assert s["nodes_upgraded"] == 4, s["nodes_upgraded"]
assert s["max_unavailable_seen"] <= 2, s["max_unavailable_seen"]
assert [b["state"] for b in s["batches"]] == ["done", "done"]
admin = [n for n in s["nodes"] if n["name"] == "h100-0002"][0]
assert admin["was_unschedulable"] and not admin["cordoned_by_us"], admin
PY
for node in h100-0000 h100-0001 h100-0002 h100-0003; do
  labels=$(k get node "$node" -o json | "$py" -c 'import json,sys; l=json.load(sys.stdin)["metadata"]["labels"]; print(l.get("steward.io/gpu-driver-version"), l.get("nvidia.com/gpu-driver-upgrade-state"), l.get("nvidia.com/cuda.driver-version.full"))')
  [ "$labels" = "570.86.15 upgrade-done 570.86.15" ] || fail "$node labels: $labels"
done
[ "$(k get node h100-0002 -o jsonpath='{.spec.unschedulable}')" = true ] ||
  fail "the admin's cordon was undone"
for node in h100-0000 h100-0001 h100-0003; do
  [ "$(k get node "$node" -o jsonpath='{.spec.unschedulable}')" = "" ] || fail "$node left cordoned"
done
[ "$(k get node h100-0004 -o jsonpath='{.metadata.labels.steward\.io/gpu-driver-version}')" = "" ] ||
  fail "a node outside the selector was touched"
grep -q "applied label node/h100-0001" "$tmp/apply.out" || fail "no applied lines"

# --- GitOps: revert the upgrade's commit; the next run rolls the cluster back ------------------
git -C "$repo" revert --no-edit HEAD >/dev/null
revert_commit=$(git -C "$repo" rev-parse HEAD)
grep -q '^version: "550.90.07"' "$repo/plan.yaml" || fail "the revert did not restore the plan"
"$bin" rollout run "$repo/plan.yaml" --kubeconfig "$kc" --apply --state "$tmp/live.db" \
  --interval 0.2 --max-evictions-per-minute 200 >"$tmp/revert.out" 2>"$tmp/revert.err" ||
  fail "rollout after the revert: $(tail -5 "$tmp/revert.err")"
"$bin" rollout status --state "$tmp/live.db" --json >"$tmp/revert.json" || fail "status"
"$py" - "$tmp/revert.json" "$upgrade_commit" "$revert_commit" <<'PY' || fail "revert status"
import json, sys
s = json.load(open(sys.argv[1]))
upgrade, revert = sys.argv[2:]
assert s["state"] == "rolled_back", s["state"]
assert s["nodes_rolled_back"] == 4, s["nodes_rolled_back"]
commits = [d["commit"] for d in s["log"]]
assert upgrade in commits and revert in commits, set(commits)
first_revert = commits.index(revert)
assert all(c == upgrade for c in commits[:first_revert]) and all(c == revert for c in commits[first_revert:])
assert any("the plan now asks for 550.90.07" in d["reason"] for d in s["log"])
assert max(n["rollbacks"] for n in s["nodes"]) == 1
PY
for node in h100-0000 h100-0001 h100-0002 h100-0003; do
  v=$(k get node "$node" -o jsonpath='{.metadata.labels.steward\.io/gpu-driver-version}')
  [ "$v" = 550.90.07 ] || fail "$node on $v after the revert"
done
[ "$(k get node h100-0002 -o jsonpath='{.spec.unschedulable}')" = true ] ||
  fail "the admin's cordon was undone by the rollback"
echo "rollout live: ok"
