#!/usr/bin/env bash
# End-to-end: the rollout examples on the twin (docs/rollout.md), checked from
# `rollout status --json` of each run's state file:
#   - validate: every example is valid; a bad plan fails with FILE:LINE: field: why;
#   - good-driver: succeeds, every target node upgraded once, all batches done;
#   - bad-driver: the XID gate fails on the canary; no node outside the canary batch (plus
#     what was in flight) ever ran the bad version; every touched node is back on 550.90.07,
#     uncordoned as before; later batches never started;
#   - inconclusive-driver: pauses at the canary with an inconclusive gate, nothing rolled back;
#   - mig-layout: the MIG layout rolls out through mig.config.state;
#   - every decision carries the plan's commit; maxUnavailable is never exceeded;
#   - the same plan and seed give the same status (the twin is deterministic).
set -euo pipefail
bin=${1:?usage: rollout_examples.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/harness.sh"
py=/usr/bin/python3
ex="$root/examples/rollouts"

for plan in good-driver bad-driver inconclusive-driver mig-layout; do
  "$bin" rollout validate "$ex/$plan.yaml" >/dev/null || fail "$plan.yaml does not validate"
done
sed 's/maxUnavailable: 25%/maxUnavailable: 0/' "$ex/good-driver.yaml" >"$tmp/broken.yaml"
if "$bin" rollout validate "$tmp/broken.yaml" 2>"$tmp/broken.err"; then fail "a bad plan validated"; fi
line=$(grep -n "maxUnavailable" "$tmp/broken.yaml" | cut -d: -f1)
grep -q "^$tmp/broken.yaml:$line.*maxUnavailable: " "$tmp/broken.err" ||
  fail "error without file:line: field: $(cat "$tmp/broken.err")"

for plan in good-driver bad-driver inconclusive-driver mig-layout; do
  "$bin" rollout run "$ex/$plan.yaml" --state "$tmp/$plan.db" >"$tmp/$plan.log" 2>&1 ||
    fail "rollout run $plan"
  "$bin" rollout status --state "$tmp/$plan.db" --json >"$tmp/$plan.json" ||
    fail "rollout status $plan"
done
# Text status too.
"$bin" rollout status --state "$tmp/bad-driver.db" | grep -q "state: rolled_back" ||
  fail "text status of the bad driver"

"$py" - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def load(name):
    return json.load(open(f"{tmp}/{name}.json"))
def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
IN_PROGRESS = {"cordon-required", "wait-for-jobs-required", "pod-deletion-required",
               "drain-required", "pod-restart-required", "validation-required",
               "uncordon-required"}

for name in ("good-driver", "bad-driver", "inconclusive-driver", "mig-layout"):
    s = load(name)
    check(s["max_unavailable_seen"] <= s["max_unavailable"],
          f"{name}: {s['max_unavailable_seen']} unavailable > maxUnavailable {s['max_unavailable']}")
    check(all(d["commit"] == s["plan_commit"] for d in s["log"]), f"{name}: commit on every decision")
    check(all(n["upgrades"] <= 1 for n in s["nodes"]), f"{name}: a node upgraded twice")
    for b in s["batches"]:
        for g in b["gates"]:
            check(g["verdict"] in ("running", "successful", "failed", "inconclusive", "error"),
                  f"{name}: gate verdict {g['verdict']}")

good = load("good-driver")
check(good["state"] == "succeeded", f"good: {good['state']}")
check(good["nodes_upgraded"] == len(good["nodes"]) == 16, "good: every node upgraded")
check(all(b["state"] == "done" for b in good["batches"]), "good: every batch done")
check(all(n["state"] == "upgrade-done" and n["want_version"] == "570.86.15" for n in good["nodes"]),
      "good: every node upgrade-done on 570")
check(good["batches"][0]["nodes"] == ["h100-0000", "h100-0005"], "good: the canary nodes")

bad = load("bad-driver")
check(bad["state"] == "rolled_back", f"bad: {bad['state']}")
canary = set(bad["batches"][0]["nodes"])
check(bad["batches"][0]["state"] == "rolled-back", "bad: canary rolled back")
xids = [g for g in bad["batches"][0]["gates"] if g["metric"] == "xid_rate_delta"][0]
check(xids["verdict"] == "failed" and xids["value"] > 2, f"bad: xid gate {xids['verdict']} {xids['value']}")
check(all(b["state"] == "pending" for b in bad["batches"][1:]), "bad: later batches never started")
# The bad version reached at most the canary plus what was in flight when the gate failed.
in_flight = set()
for d in bad["log"]:
    if d["kind"] == "node" and d["to"] in IN_PROGRESS and d["object"] not in canary:
        in_flight.add(d["object"])
reached = {n["name"] for n in bad["nodes"] if n["upgrades"] > 0}
check(reached <= canary | in_flight, f"bad version reached {sorted(reached - canary)}")
check(bad["nodes_upgraded"] == len(reached) and bad["nodes_rolled_back"] == len(reached),
      "bad: every upgraded node rolled back")
for n in bad["nodes"]:
    if n["state"] != "":
        check(n["state"] == "upgrade-done" and n["want_version"] == "550.90.07" and not n["on_target"]
              and not n["cordoned_by_us"], f"bad: {n['name']} not restored: {n}")
# Every version label the rollout set ends on the previous version, node by node.
last = {}
for d in bad["log"]:
    if d["kind"] == "node" and d["to"] == "pod-restart-required":
        last[d["object"]] = d["reason"]
check(all(r.endswith("set to 550.90.07") for r in last.values()), f"bad: last labels {last}")

inc = load("inconclusive-driver")
check(inc["state"] == "paused", f"inconclusive: {inc['state']}")
check(inc["batches"][0]["state"] == "paused", "inconclusive: canary paused")
check(any(g["verdict"] == "inconclusive" for g in inc["batches"][0]["gates"]), "inconclusive gate")
check(inc["nodes_rolled_back"] == 0, "inconclusive: nothing rolled back")

mig = load("mig-layout")
check(mig["state"] == "succeeded" and mig["component"] == "mig-config", f"mig: {mig['state']}")
check(mig["version_label"] == "nvidia.com/mig.config", "mig: the MIG manager's label")
check(any("mig.config.state=success" in d["reason"] for d in mig["log"]), "mig: waited for success")
PY

# A human answers the pause: --abort rolls the canary back; --resume accepts it (the next batch
# pauses again: the version is just as inconclusive there). The answer is logged, and a replay
# on the same state repeats it without being asked again.
cp "$tmp/inconclusive-driver.db" "$tmp/abort.db"
"$bin" rollout run "$ex/inconclusive-driver.yaml" --state "$tmp/abort.db" --abort \
  --why "too many XIDs for my taste" >/dev/null 2>&1 || fail "--abort"
"$bin" rollout status --state "$tmp/abort.db" --json >"$tmp/abort.json"
"$bin" rollout run "$ex/inconclusive-driver.yaml" --state "$tmp/inconclusive-driver.db" --resume \
  >/dev/null 2>&1 || fail "--resume"
"$bin" rollout status --state "$tmp/inconclusive-driver.db" --json >"$tmp/resume.json"
"$bin" rollout run "$ex/inconclusive-driver.yaml" --state "$tmp/inconclusive-driver.db" \
  >/dev/null 2>&1 || fail "replay after --resume"
"$bin" rollout status --state "$tmp/inconclusive-driver.db" --json >"$tmp/resume-again.json"
"$py" - "$tmp" <<'PY' || fail "answering a pause"
import json, sys
tmp = sys.argv[1]
a = json.load(open(f"{tmp}/abort.json"))
assert a["state"] == "rolled_back", a["state"]
assert any(d["reason"] == "aborted by a human: too many XIDs for my taste" for d in a["log"])
r = json.load(open(f"{tmp}/resume.json"))
assert r["batches"][0]["state"] == "done", r["batches"][0]["state"]
assert r["batches"][1]["state"] == "paused" and r["state"] == "paused", r["state"]
assert sum(d["reason"].startswith("resumed by a human") for d in r["log"]) == 1
again = json.load(open(f"{tmp}/resume-again.json"))
assert again == r, "the replay did not repeat the human's answer"
PY

# Deterministic: the same plan and seed give the same status.
"$bin" rollout run "$ex/bad-driver.yaml" --json >"$tmp/bad-again.json" 2>/dev/null ||
  fail "second run"
"$py" - "$tmp/bad-driver.json" "$tmp/bad-again.json" <<'PY' || fail "the twin run is not deterministic"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("log",):
    a.pop(k); b.pop(k)
sys.exit(0 if a == b else 1)
PY
echo "rollout examples: ok"
