#!/usr/bin/env bash
# End-to-end: the labels of the rollouts the engine runs inside the twin, as kubectl sees them
# through the twin's Kubernetes API front (`serve --kube-port`) on
# examples/rollouts/twin-driver-rollouts.yaml: the good driver's nodes end with its version label,
# the driver's node label and the upgrade-state label upgrade-done; the nodes of the two bad
# drivers' canaries end back on 550.90.07 (version label and driver label), uncordoned; the
# nodes the bad drivers never reached have no version label. Waits for the end states in
# /api/rollouts first.
set -euo pipefail
bin=${1:?usage: kube_rollout_labels.sh STEWARD}
source "$(dirname "$0")/lib/kube.sh"

# One simulated hour per real second: the last rollout ends at 12.8 h.
start_kube_twin examples/rollouts/twin-driver-rollouts.yaml --speed 3600
# The labels are checked once the engine is done with all three (the good driver's nodes are
# upgrade-done an hour before its last gate passes).
done_all() {
  curl -sf "$dash_url/api/rollouts" | /usr/bin/python3 -c '
import json, sys
states = [r["state"] for r in json.load(sys.stdin)["rollouts"]]
sys.exit(0 if states == ["rolled_back", "rolled_back", "succeeded"] else 1)'
}
wait_until 120 "the three rollouts end rolled_back, rolled_back, succeeded" done_all
k get nodes -l steward.io/gpu-driver-version=570.86.15,nvidia.com/gpu-driver-upgrade-state=upgrade-done \
  -o json >"$tmp/good.json"
k get nodes -o json >"$tmp/nodes.json"
/usr/bin/python3 - "$tmp" <<'PY' || fail "node labels"
import json, sys
tmp = sys.argv[1]
good = sorted(n["metadata"]["name"] for n in json.load(open(f"{tmp}/good.json"))["items"])
assert good == [f"h100-{i:04d}" for i in range(11, 16)], good
nodes = {n["metadata"]["name"]: n for n in json.load(open(f"{tmp}/nodes.json"))["items"]}
assert len(nodes) == 16, sorted(nodes)
for name, n in nodes.items():
    l = n["metadata"]["labels"]
    i = int(name.split("-")[1])
    driver = "570.86.15" if i >= 11 else "550.90.07"
    assert l["nvidia.com/cuda.driver-version.full"] == driver, (name, l)
    assert not n["spec"].get("unschedulable", False), name
    if i in (0, 1, 6):
        assert l["steward.io/gpu-driver-version"] == "550.90.07", (name, l)
        assert l["nvidia.com/gpu-driver-upgrade-state"] == "upgrade-done", (name, l)
    elif i < 11:
        assert "steward.io/gpu-driver-version" not in l, (name, l)
        assert "nvidia.com/gpu-driver-upgrade-state" not in l, (name, l)
PY
echo "kube rollout labels: ok"
