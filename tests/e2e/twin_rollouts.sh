#!/usr/bin/env bash
# End-to-end: gated faults.driver_rollouts run by the rollout engine inside the twin
# (examples/rollouts/twin-driver-rollouts.yaml, docs/rollout.md "The twin"):
#   - the XID-raising driver stops at the canary: its XID gate fails, the 2 canary nodes roll
#     back, no other node of the batch ever gets the driver;
#   - the driver whose device plugin advertises nothing fails validation on its canary and
#     rolls back before any gate;
#   - the good driver reaches every node of its batch;
#   - rollback restores every touched node (`twin nodes` at the end: driver label, version label,
#     uncordoned, 8 GPUs); mid-rollout the version and upgrade-state labels are on the nodes;
#   - the report's rollout section in text, JSON (the shape of `rollout status --json`) and HTML;
#   - same scenario and seed, byte-identical reports; a bad `gated` field names file:line:field;
#   - a gated entry with a plan file (examples/rollouts/twin-paused.yaml): its inconclusive XID
#     gate pauses each batch, and the scenario's human resumes each an hour later.
set -euo pipefail
bin=${1:?usage: twin_rollouts.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/harness.sh"
py=/usr/bin/python3
scenario="$root/examples/rollouts/twin-driver-rollouts.yaml"

"$bin" twin validate "$scenario" >/dev/null || fail "twin validate"
"$bin" twin run "$scenario" --json >"$tmp/a.json" 2>"$tmp/run.log" || fail "twin run --json"
"$bin" twin run "$scenario" --json >"$tmp/b.json" 2>>"$tmp/run.log" || fail "twin run --json (2)"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "two runs of one scenario and seed differ"
"$bin" twin run "$scenario" --html "$tmp/report.html" >"$tmp/report.txt" 2>>"$tmp/run.log" ||
  fail "twin run --html"
"$bin" twin run "$scenario" --html "$tmp/report2.html" >/dev/null 2>>"$tmp/run.log"
cmp -s "$tmp/report.html" "$tmp/report2.html" || fail "two HTML reports differ"
"$bin" twin nodes "$scenario" --at 24h >"$tmp/end.json" || fail "twin nodes --at 24h"
"$bin" twin nodes "$scenario" --at 11h >"$tmp/mid.json" || fail "twin nodes --at 11h"

"$py" - "$tmp" <<'PY' || fail "rollout checks"
import json, re, sys
tmp = sys.argv[1]
def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
report = json.load(open(f"{tmp}/a.json"))
ro = report["rollouts"]
check([r["plan"] for r in ro] == ["h100-driver-575.51.02", "h100-driver-560.35.03",
                                  "h100-driver-570.86.15"], [r["plan"] for r in ro])
for r in ro:
    for key in ("batches", "state", "nodes_upgraded", "nodes_rolled_back", "max_unavailable_seen",
                "log", "nodes"):
        check(key in r, f"{r['plan']}: no {key}")
    check(r["max_unavailable_seen"] <= r["max_unavailable"], f"{r['plan']}: budget exceeded")
    check([d["seq"] for d in r["log"]] == list(range(len(r["log"]))), f"{r['plan']}: log gaps")
    check(all(d["commit"] == "none" for d in r["log"]), f"{r['plan']}: commit")

def batch_nodes(r, name):
    return next(b for b in r["batches"] if b["name"] == name)["nodes"]

# The noisy driver: stopped at the canary by the XID gate and rolled back.
noisy, blind, good = ro
check(noisy["state"] == "rolled_back", f"noisy: {noisy['state']} ({noisy['reason']})")
canary = next(b for b in noisy["batches"] if b["name"] == "canary")
check(canary["state"] == "rolled-back", canary["state"])
xids = next(g for g in canary["gates"] if g["name"] == "xids")
check(xids["verdict"] == "failed" and xids["value"] > 0.5, xids)
check(xids["success_condition"] == "result <= 0.5" and xids["failure_condition"] == "result > 0.5", xids)
check(next(b for b in noisy["batches"] if b["name"] == "rest")["state"] == "pending", "rest started")
check(canary["nodes"] == ["h100-0000", "h100-0001"], canary["nodes"])
# In flight when the gate failed: none (the canary had finished); nothing beyond the canary.
touched = {n["name"] for n in noisy["nodes"] if n["upgrades"] > 0}
check(touched <= set(canary["nodes"]), f"noisy driver beyond the canary: {touched}")
check(noisy["nodes_upgraded"] == 2 and noisy["nodes_rolled_back"] == 2, noisy)
check(any(d["kind"] == "gate" and d["to"] == "failed" for d in noisy["log"]), "no gate decision")

# The blind driver: its canary fails validation, no gate measured, rolled back.
check(blind["state"] == "rolled_back", f"blind: {blind['state']} ({blind['reason']})")
check(blind["batches"][0]["nodes"] == ["h100-0006"], blind["batches"][0]["nodes"])
check(any(d["kind"] == "node" and d["to"] == "upgrade-failed" for d in blind["log"]),
      "blind: no upgrade-failed")
check({n["name"] for n in blind["nodes"] if n["upgrades"] > 0} == {"h100-0006"}, blind["nodes"])

# The good driver: every node of its batch.
check(good["state"] == "succeeded", f"good: {good['state']} ({good['reason']})")
check(all(n["upgrades"] == 1 and n["state"] == "upgrade-done" for n in good["nodes"]), good["nodes"])
check(len(good["nodes"]) == 5 and good["nodes_upgraded"] == 5, good["nodes_upgraded"])
check(report["faults"]["driver_rollouts"] == 3, report["faults"]["driver_rollouts"])

def labels(path):
    return {n["metadata"]["name"]: (n["metadata"]["labels"], n["spec"].get("unschedulable", False),
                                    n["status"]["allocatable"].get("nvidia.com/gpu"))
            for n in json.load(open(path))["items"]}
end = labels(f"{tmp}/end.json")
for i in range(16):
    name = f"h100-{i:04d}"
    l, cordoned, gpus = end[name]
    want = "570.86.15" if i >= 11 else "550.90.07"
    check(l["nvidia.com/cuda.driver-version.full"] == want, f"{name}: driver {l}")
    check(not cordoned and str(gpus) == "8", f"{name}: cordoned {cordoned}, gpus {gpus}")
    if i in (0, 1, 6):  # Rolled back: the version label says so, the machine ended done.
        check(l["steward.io/gpu-driver-version"] == "550.90.07", f"{name}: {l}")
        check(l["nvidia.com/gpu-driver-upgrade-state"] == "upgrade-done", f"{name}: {l}")
    elif i < 11:
        check("steward.io/gpu-driver-version" not in l, f"{name} was touched: {l}")
# Mid-way through the good rollout (it starts at 10 h): its canary is on the new driver.
mid = labels(f"{tmp}/mid.json")
l = mid["h100-0011"][0]
check(l.get("steward.io/gpu-driver-version") == "570.86.15", f"h100-0011 at 11h: {l}")
check("nvidia.com/gpu-driver-upgrade-state" in l, f"h100-0011 at 11h: {l}")

text = open(f"{tmp}/report.txt").read()
check("\nRollouts\n" in text and "state: rolled_back" in text and "state: succeeded" in text,
      "text report has no rollout section")
check(re.search(r"gate xids\s+failed", text), "text report: no failed xids gate")
html = open(f"{tmp}/report.html").read()
check(html.count('class="rollout"') == 3 and 'data-state="rolled_back"' in html, "HTML section")
PY

# A bad gated field: file, line and field.
sed 's/gated: {canary_nodes: 2, soak_hours: 1}/gated: {canary_nodes: 0, soak_hours: 1}/' \
  "$scenario" >"$tmp/bad.yaml"
if "$bin" twin validate "$tmp/bad.yaml" 2>"$tmp/bad.err"; then fail "canary_nodes: 0 accepted"; fi
line=$(grep -n "canary_nodes: 0" "$tmp/bad.yaml" | cut -d: -f1)
grep -q "$tmp/bad.yaml:$line.*faults.driver_rollouts\[0\].gated.canary_nodes" "$tmp/bad.err" ||
  fail "error without file:line: field: $(cat "$tmp/bad.err")"
# A gated entry with a full plan file whose XID gate is inconclusive: each batch pauses and the
# scenario's human resumes it an hour later (examples/rollouts/twin-paused.yaml).
paused="$root/examples/rollouts/twin-paused.yaml"
"$bin" rollout validate "$root/examples/rollouts/twin-paused-plan.yaml" >/dev/null ||
  fail "rollout validate twin-paused-plan.yaml"
"$bin" twin run "$paused" --json >"$tmp/p.json" 2>>"$tmp/run.log" || fail "twin run twin-paused"
"$bin" twin run "$paused" --json >"$tmp/p2.json" 2>>"$tmp/run.log" || fail "twin run twin-paused (2)"
cmp -s "$tmp/p.json" "$tmp/p2.json" || fail "two runs of twin-paused differ"
"$py" - "$tmp/p.json" <<'PY' || fail "paused rollout checks"
import json, sys
(r,) = json.load(open(sys.argv[1]))["rollouts"]
def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
check(r["plan"] == "h100-driver-565", r["plan"])  # The plan file's name.
check(r["state"] == "succeeded", f"{r['state']} ({r['reason']})")
check([b["name"] for b in r["batches"]] == ["canary", "rest"], r["batches"])
check(len(r["batches"][0]["nodes"]) == 2 and r["nodes_upgraded"] == 8, r["nodes_upgraded"])
for b in r["batches"]:
    xids = next(g for g in b["gates"] if g["name"] == "xids")
    check(xids["verdict"] == "inconclusive" and 0.1 < xids["value"] <= 5, (b["name"], xids))
pauses = [d for d in r["log"] if d["kind"] == "rollout" and d["to"] == "paused"]
answers = [d for d in r["log"] if d["kind"] == "rollout" and d["from"] == "paused"]
check(len(pauses) == 2 and len(answers) == 2, (pauses, answers))
for p, a in zip(pauses, answers):
    check(a["at_us"] - p["at_us"] == 3600 * 10**6, (p["at_us"], a["at_us"]))
    check(a["reason"] == "resumed by a human: the scenario's human, 60 min into the pause",
          a["reason"])
PY
echo "twin rollouts: ok"
