#!/usr/bin/env bash
# End-to-end: `steward policy simulate --kubeconfig` reads Kueue's Configuration where Kueue's
# installation keeps it, the ConfigMap kueue-system/kueue-manager-config
# (controller_manager_config.yaml). The twin's API front serves that ConfigMap when its policy
# has a Configuration (examples/kueue/config.yaml: fair sharing on): kubectl sees it, the
# simulation of the cluster runs with fair sharing and decides exactly as a simulation of
# kubectl's dump plus the ConfigMap's data given as a file; a Configuration in a file replaces
# the cluster's (noted); a cluster without the ConfigMap is simulated with Kueue's defaults and
# says so.
set -euo pipefail
bin=${1:?usage: policy_simulate_kueue_config.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
source "$root/tests/e2e/lib/kube.sh"

start_kube_twin "$root/examples/case2/scenario.yaml" --policy "$root/examples/case2/with-limits.yaml" \
  "$root/examples/kueue/config.yaml"
wait_until 30 "ClusterQueues exist" bash -c "[ \$('$kubectl' --kubeconfig '$kc' get clusterqueues.kueue.x-k8s.io --no-headers 2>/dev/null | wc -l) -ge 1 ]"

k get configmap -n kueue-system kueue-manager-config -o json >"$tmp/cm.json"
$py - "$tmp/cm.json" "$tmp/config.yaml" <<'PY'
import json, sys, yaml
cm = json.load(open(sys.argv[1]))
text = cm["data"]["controller_manager_config.yaml"]
c = yaml.safe_load(text)
assert c["kind"] == "Configuration" and c["apiVersion"].startswith("config.kueue.x-k8s.io/"), c
assert "fairSharing" in c and c["waitForPodsReady"]["timeout"] == "600s", c
open(sys.argv[2], "w").write(text)
PY

simulate_cluster_against_dump "$tmp/config.yaml"
cmp "$tmp/cluster.json" "$tmp/files_before.json" ||
  fail "the cluster read and the dump with its Configuration simulate differently: $(diff "$tmp/cluster.json" "$tmp/files_before.json" | head -20)"
$py -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["fair_sharing"] is True, r["fair_sharing"]' \
  "$tmp/cluster.json" || fail "the cluster's Configuration (fair sharing) was not used"
if grep -q "no Kueue Configuration read" "$tmp/cluster.err"; then
  fail "a note says no Configuration was read: $(cat "$tmp/cluster.err")"
fi

# A Configuration in a file replaces the cluster's: fair sharing off.
cat >"$tmp/no-fair.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
fairSharing: {enable: false}
YAML
"$bin" policy simulate --kubeconfig "$kc" "$tmp/no-fair.yaml" --json >"$tmp/replaced.json" \
  2>"$tmp/replaced.err" || fail "simulate with a Configuration file failed: $(cat "$tmp/replaced.err")"
grep -q "Kueue Configuration from the files replaces the cluster's" "$tmp/replaced.err" ||
  fail "no note on the replaced Configuration: $(cat "$tmp/replaced.err")"
$py -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["fair_sharing"] is False, r["fair_sharing"]' \
  "$tmp/replaced.json" || fail "the file's Configuration did not replace the cluster's"
kill "${pids[-1]}" 2>/dev/null || true

# Without a Configuration the front serves no such ConfigMap: Kueue's defaults, with a note.
start_kube_twin "$root/examples/case2/scenario.yaml" --policy "$root/examples/case2/with-limits.yaml"
if k get configmap -n kueue-system kueue-manager-config >/dev/null 2>&1; then
  fail "a ConfigMap is served without a Configuration"
fi
"$bin" policy simulate --kubeconfig "$kc" --json >"$tmp/default.json" 2>"$tmp/default.err" ||
  fail "simulate --kubeconfig failed: $(cat "$tmp/default.err")"
grep -q "no Kueue Configuration read (ConfigMap kueue-system/kueue-manager-config: NotFound)" \
  "$tmp/default.err" || fail "no note on the missing Configuration: $(cat "$tmp/default.err")"
$py -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["fair_sharing"] is False' \
  "$tmp/default.json" || fail "fair sharing without a Configuration"
echo "ok: Kueue's Configuration read from its ConfigMap, replaced by a file, defaults without it"
