#!/usr/bin/env bash
# The case-1 loop with no hand-written YAML: diagnose --out writes an artifact per
# recommendation and after.yaml; every artifact loads in what consumes it (steward policy import,
# twin validate, kubectl apply --dry-run=client against the twin's Kubernetes API, kubectl patch
# --local on a pod template); twin compare of before vs after improves what the diagnosis
# targeted, and a diagnosis of the after run shows less of each targeted waste.
set -euo pipefail
bin=${1:?usage: diagnose_loop.sh STEWARD}
source tests/e2e/lib/kube.sh
py=/usr/bin/python3
scenario=examples/case1/scenario.yaml
fix="$tmp/fix"

"$bin" diagnose --twin "$scenario" --out "$fix" --json >"$tmp/diagnosis.json" ||
  fail "diagnose --out"

# The artifacts listed under `artifacts` exist, match the manifest, and cover the
# recommendations that configuration can implement.
"$py" - "$tmp/diagnosis.json" "$fix" <<'PY' || fail "artifacts listing"
import json, os, sys, yaml
d, fix = json.load(open(sys.argv[1])), sys.argv[2]
arts = d["artifacts"]
causes = [r["cause"] for r in d["recommendations"]]
kinds = {a["kind"] for a in arts}
for a in arts:
    assert os.path.isfile(a["path"]), a
    assert a["implements"], a
    for c in a["implements"]:
        assert c in causes or c == "right_sizing", (a, causes)
manifest = json.load(open(os.path.join(fix, "artifacts.json")))
assert sorted(os.path.join(fix, m["path"]) for m in manifest["artifacts"]) == \
    sorted(a["path"] for a in arts)
by_cause = {c: [a["kind"] for a in arts if c in a["implements"]] for c in causes}
if "queueing" in causes: assert "kueue" in by_cause["queueing"], by_cause
if "zombie" in causes: assert "idle-reclaim" in by_cause["zombie"], by_cause
scen = [a for a in arts if a["kind"] == "scenario"]
assert len(scen) == 1 and os.path.basename(scen[0]["path"]) == "after.yaml"
# Every cause either has an artifact or is listed as not written, with a reason.
not_written = {n["cause"] for n in d["artifacts_not_written"]}
for c in causes:
    assert by_cause[c] or c in not_written, c
# One patch per right-sizing row that changes something; MIG rows name the MIG resource.
rows = [r for r in d["right_sizing"]
        if r["mig_profile"] or r["recommended_gpus_per_pod"] < r["requested_gpus_per_pod"]]
patches = {a["class"] + "@" + os.path.basename(a["path"]): a for a in arts
           if a["kind"] == "right-sizing-patch"}
assert len(patches) == len(rows), (len(patches), len(rows))
for r in rows:
    p = [a for a in patches.values() if a["class"] == r["class"]
         and a["path"].endswith("-%dgpu.patch.yaml" % r["requested_gpus_per_pod"])]
    assert len(p) == 1, r["class"]
    res = yaml.safe_load(open(p[0]["path"]))["spec"]["template"]["spec"]["containers"][0]["resources"]
    if r["mig_profile"]:
        assert res["limits"]["nvidia.com/mig-" + r["mig_profile"]] == "1", res
        assert res["limits"]["nvidia.com/gpu"] is None, res
    else:
        assert res["limits"]["nvidia.com/gpu"] == str(r["recommended_gpus_per_pod"]), res
# Kueue objects are well-formed and the queues have borrowing and lending limits.
docs = [x for x in yaml.safe_load_all(open(os.path.join(fix, "kueue.yaml"))) if x]
assert all(x["apiVersion"].startswith("kueue.x-k8s.io/") and x["metadata"]["name"] for x in docs)
cqs = [x for x in docs if x["kind"] == "ClusterQueue"]
assert cqs and any(x["kind"] == "Cohort" for x in docs)
for cq in cqs:
    q = cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]
    assert cq["spec"]["cohort"] and "borrowingLimit" in q and "lendingLimit" in q, cq
    assert 0 <= q["lendingLimit"] <= q["nominalQuota"], q
# The reclaim artifact is a scenario section plus the operate flags.
r = open(os.path.join(fix, "reclaim.yaml")).read()
assert "--reclaim-after" in r and yaml.safe_load(r)["reclaim"]["enabled"] is True
PY

# Each loads in what consumes it.
"$bin" policy import "$fix/kueue.yaml" --json >"$tmp/policy.json" || fail "policy import"
"$bin" twin validate "$fix/after.yaml" >/dev/null || fail "twin validate after.yaml"
for p in "$fix"/rightsize/*.patch.yaml; do
  container=$("$py" -c 'import sys,yaml; print(yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]["containers"][0]["name"])' "$p")
  cat >"$tmp/job.yaml" <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: example, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: $container
        image: example
        resources:
          limits: {nvidia.com/gpu: "8", cpu: "4"}
          requests: {nvidia.com/gpu: "8"}
EOF
  KUBECONFIG=/dev/null "$kubectl" patch --local -f "$tmp/job.yaml" --type strategic \
    --patch-file "$p" -o json >"$tmp/patched.json" 2>"$tmp/patch.log" ||
    fail "kubectl patch --local $p: $(cat "$tmp/patch.log")"
  "$py" - "$tmp/patched.json" <<'PY' || fail "patched template of $p"
import json, sys
c = json.load(open(sys.argv[1]))["spec"]["template"]["spec"]["containers"]
assert len(c) == 1, "the patch added a container instead of changing the one there"
lim = c[0]["resources"]["limits"]
assert lim["cpu"] == "4", lim  # Other resources are kept.
mig = [k for k in lim if k.startswith("nvidia.com/mig-")]
assert (mig and "nvidia.com/gpu" not in lim) or (not mig and int(lim["nvidia.com/gpu"]) < 8), lim
PY
done
start_kube_twin "$scenario"
k apply --dry-run=client --validate=false -f "$fix/kueue.yaml" >"$tmp/apply.log" 2>&1 ||
  fail "kubectl apply --dry-run=client kueue.yaml: $(cat "$tmp/apply.log")"
grep -q "clusterqueue.kueue.x-k8s.io/.*(dry run)" "$tmp/apply.log" || fail "no ClusterQueue applied"

# The loop: before vs after in the twin, then the diagnosis of the after run.
"$bin" twin compare "$scenario" --vs-scenario "$fix/after.yaml" --json >"$tmp/compare.json" ||
  fail "twin compare"
"$bin" diagnose --twin "$fix/after.yaml" --json >"$tmp/after_diagnosis.json" ||
  fail "diagnose after.yaml"
"$py" - "$tmp/diagnosis.json" "$tmp/after_diagnosis.json" "$tmp/compare.json" <<'PY' ||
import json, sys
before, after, cmp = (json.load(open(f)) for f in sys.argv[1:4])
rb, ra = cmp["before"]["report"], cmp["after"]["report"]
# Real utilization rises and the work waiting at the end shrinks.
assert ra["sm_active_utilization"] > rb["sm_active_utilization"], \
    (rb["sm_active_utilization"], ra["sm_active_utilization"])
assert ra["workloads"]["pending"] < rb["workloads"]["pending"]
assert cmp["delta"]["utilization"]["sm_active_utilization"] > 0
# Each targeted waste shrinks in the diagnosis of the after run.
wb, wa = before["waste_gpu_hours_by_cause"], after["waste_gpu_hours_by_cause"]
targeted = {c for a in before["artifacts"] for c in a["implements"]} & set(wb)
assert {"queueing", "zombie", "over_request"} <= targeted, targeted
for c in sorted(targeted):
    assert wa.get(c, 0) < wb[c], (c, wb[c], wa.get(c, 0))
assert after["sm_active_utilization"] > before["sm_active_utilization"]
# The queueing rows split the cluster's queueing among the waiting teams, each with its quota.
rows = before["queueing_by_team"]
assert abs(sum(r["gpu_hours"] for r in rows) - wb["queueing"]) < 0.05 * len(rows) + 0.01, rows
assert all(r["quota_gpus"] > 0 and r["cluster_queue"] for r in rows), rows
# The verdict judges SM-active better and lists it among the gains.
v = cmp["verdict"]
assert v["by_kpi"]["utilization"]["sm_active_utilization"] == "better", v["by_kpi"]
assert any(g.startswith("SM-active +") for g in v["gains"]), v["gains"]
print("diagnose_loop: SM-active %.1f%% -> %.1f%%; " % (100 * rb["sm_active_utilization"],
      100 * ra["sm_active_utilization"]) +
      ", ".join("%s %.0f -> %.0f GPU-h" % (c, wb[c], wa.get(c, 0)) for c in sorted(targeted)))
PY
  fail "the after run does not improve what the diagnosis targeted"

# DIR rules: a previous --out's directory is replaced; a foreign file is refused, named.
"$bin" diagnose --twin "$scenario" --days 1 --out "$fix" >/dev/null || fail "re-run into DIR"
touch "$fix/notes.txt"
if "$bin" diagnose --twin "$scenario" --days 1 --out "$fix" >/dev/null 2>"$tmp/err"; then
  fail "a DIR holding other files was accepted"
fi
grep -q "notes.txt" "$tmp/err" || fail "the refusal does not name the file: $(cat "$tmp/err")"
echo "diagnose_loop: ok"
