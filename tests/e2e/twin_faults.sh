#!/usr/bin/env bash
# End-to-end: faults and remediation through the CLI. `twin nodes` exports the twin's nodes as
# `kubectl get nodes -o json` and `health nodes` finds the scripted faults in it; `health
# overview` counts faulty and cordoned GPUs and open incidents; `twin run --json` reports them.
set -euo pipefail
bin=${1:?usage: twin_faults.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
scenario=examples/faults/scenario.yaml

"$bin" twin nodes "$scenario" --at 3h >"$tmp/nodes.json" || fail "twin nodes"
"$bin" health nodes "$tmp/nodes.json" --json --fail-on never >"$tmp/findings.json" || fail "health nodes"
python3 - "$tmp/nodes.json" "$tmp/findings.json" <<'PY'
import json, sys
nodes, findings = (json.load(open(p)) for p in sys.argv[1:])
assert nodes["kind"] == "List" and len(nodes["items"]) == 64
by = {}
for f in findings:
    by.setdefault(f["check"], set()).add(f["node"])
    assert f["hint"], f
plugin_down = {f"h100-{i:04d}" for i in range(8, 12)}
drifted = plugin_down | {f"h100-{i:04d}" for i in range(16, 20)}
assert plugin_down <= by.get("device-plugin-down", set()), by
assert drifted <= by.get("driver-version-drift", set()), by
assert "h100-0040" in by.get("gpus-unallocatable", set()), by   # XID 79 on one GPU
rack12 = {f"h100-{i:04d}" for i in range(48, 52)}                 # XID 74 on every GPU
assert rack12 <= by.get("device-plugin-down", set()), by
n8 = next(i for i in nodes["items"] if i["metadata"]["name"] == "h100-0008")
assert n8["status"]["allocatable"]["nvidia.com/gpu"] == "0"
assert n8["spec"].get("unschedulable") is True                   # the remediation loop cordoned it
PY

"$bin" health overview "$scenario" --at 3h --json >"$tmp/overview.json" || fail "health overview"
"$bin" health overview "$scenario" --at 3h >"$tmp/overview.txt" || fail "health overview (text)"
grep -q "open incidents" "$tmp/overview.txt" || fail "overview text lacks incidents"
python3 - "$tmp/overview.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["gpus_in_use"] + o["gpus_idle"] + o["gpus_faulty"] + o["gpus_cordoned"] == 512
assert o["gpus_faulty"] >= 4 * 8 + 4 * 8 + 1, o["gpus_faulty"]     # plugin down, rack 12, h100-0040
scopes = {(i["scope"], i["subject"]) for i in o["incidents"]}
assert ("rack", "rack-12") in scopes, scopes
assert ("node", "h100-0040") in scopes, scopes
assert o["incidents_open"] == len(o["incidents"])
PY

"$bin" twin run "$scenario" --json >"$tmp/a.json"
"$bin" twin run "$scenario" --json --remediation-db "$tmp/rem.db" >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "the store's location changed the run"
[ -s "$tmp/rem.db" ] || fail "--remediation-db wrote nothing"
python3 - "$tmp/a.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["faults"]
for k in ["by_xid", "by_source", "capacity_lost_gpu_hours", "mttr_hours", "workloads_interrupted",
          "interruptions", "lost_gpu_hours_by_cause", "training_goodput", "incidents_open"]:
    assert k in f, k
assert f["by_source"]["scheduled"] == 1 + 32 and f["driver_rollouts"] == 2 and f["rack_events"] >= 1
assert f["repairs"] >= 5 and f["mttr_hours"] > 0, f
assert set(f["lost_gpu_hours_by_cause"]) == {"failure", "drain", "preemption"}
assert 0 < f["training_goodput"] <= 1
PY
python3 -c "import sqlite3,sys; assert sqlite3.connect(sys.argv[1]).execute('select count(*) from transitions').fetchone()[0] > 0" "$tmp/rem.db" || fail "no transitions stored"
"$bin" twin run "$scenario" >"$tmp/text"
grep -q "Reliability (faults and remediation)" "$tmp/text" || fail "text report lacks reliability"
grep -q "MTTR" "$tmp/text" || fail "text report lacks MTTR"
"$bin" twin nodes "$scenario" --at 100d 2>"$tmp/err" && fail "--at past the horizon accepted"
grep -q "horizon" "$tmp/err" || fail "no horizon error: $(cat "$tmp/err")"
echo "twin_faults: ok"
