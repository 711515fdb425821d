#!/usr/bin/env bash
# A Kueue Configuration among --policy files drives the twin: import shows it, and a run with it
# enables waitForPodsReady (pods_ready_timeouts in the report) and fair sharing; a bad duration
# fails with file, line and field.
set -euo pipefail
bin=${1:?usage: twin_kueue_config.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$bin" policy import examples/kueue/config.yaml --json | python3 -c '
import json, sys
c = json.load(sys.stdin)["configuration"]
assert c["fair_sharing"] is True, c
w = c["wait_for_pods_ready"]
assert (w["enable"], w["timeout_seconds"], w["block_admission"]) == (True, 600, False), w'

# Case 2 with a 1 s timeout: every gang's pods take startup_seconds (> 1 s) to run, so each
# admission times out and is requeued with backoff.
sed 's/timeout: 10m/timeout: 1s/' examples/kueue/config.yaml >"$tmp/config.yaml"
"$bin" twin run examples/case2/scenario.yaml --policy examples/case2/with-limits.yaml \
  "$tmp/config.yaml" --json >"$tmp/r.json"
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["pods_ready_timeouts"] > 0, r["pods_ready_timeouts"]
for k in ("lost_gpu_hours_by_tier", "preemption_lost_gpu_hours_by_team",
          "preemption_lost_gpu_hours_by_tier", "lost_gpu_hours_by_team", "preemptions"):
    assert k in r, k
ev = sum(q["evicted_workloads_total"].get("PodsReadyTimeout", 0)
         for q in r["scheduler"]["cluster_queues"])
assert ev == r["pods_ready_timeouts"], (ev, r["pods_ready_timeouts"])
PY

printf 'apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady:\n  enable: true\n  timeout: soon\n' >"$tmp/bad.yaml"
if "$bin" policy import "$tmp/bad.yaml" 2>"$tmp/err"; then echo "bad duration accepted"; exit 1; fi
grep -q "bad.yaml:5:.*waitForPodsReady.timeout.*invalid duration" "$tmp/err" || { cat "$tmp/err"; exit 1; }
echo ok
