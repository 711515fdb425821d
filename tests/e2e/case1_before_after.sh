#!/usr/bin/env bash
# End-to-end: the guide's case 1 before and after applying what `steward diagnose` recommends
# (examples/case1/after.yaml: cohort borrowing, idle reclaim, binpack, right-sized requests,
# MIG instances for the light 1-GPU sizes),
# plus idle reclaim's CLI flags and scenario errors. Every comparison is between two measured
# runs; nothing below is a copied figure.
set -euo pipefail
bin=${1:?usage: case1_before_after.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
before=examples/case1/scenario.yaml after=examples/case1/after.yaml
"$bin" twin run "$before" --json >"$tmp/before.json"
"$bin" twin run "$after" --json >"$tmp/after.json"
"$bin" twin run "$before" --reclaim-dry-run --json >"$tmp/dry.json"
"$bin" diagnose --twin "$before" --json >"$tmp/d_before.json"
"$bin" diagnose --twin "$after" --json >"$tmp/d_after.json"
python3 - "$tmp" "$before" "$after" <<'PY'
import json, sys, yaml
tmp, before_yaml, after_yaml = sys.argv[1:]

# The after scenario is the before one plus the applied recommendations, nothing else: same
# cluster, teams, horizon and seed, same generators except the right-sized requests and the
# MIG instances, whose usage is the same work read on the instance (SM-active x 7/k).
sb, sa = (yaml.safe_load(open(f)) for f in (before_yaml, after_yaml))
for k in ("cluster", "teams", "seed", "horizon_days", "sample_minutes"):
    assert sb[k] == sa[k], k
gb = {g["name"]: g for g in sb["generators"]}
ga = {g["name"]: g for g in sa["generators"]}
assert gb.keys() == ga.keys()
resized = ("gpus_per_pod", "mig_profile", "usage")
for name in gb:
    strip = lambda g: {k: v for k, v in g.items() if k not in resized}
    assert strip(gb[name]) == strip(ga[name]), name
    ub, ua = gb[name].get("usage", {}), ga[name].get("usage", {})
    if "mig_profile" not in ga[name]:
        assert {u: x for u, x in ub.items() if u != "used_gpu_fraction"} == ua, name
        continue
    assert gb[name]["gpus_per_pod"] == ga[name]["gpus_per_pod"] == 1, name
    share = int(ga[name]["mig_profile"][0]) / 7
    for u in ("sm_active", "idle_busy"):
        if u in ub:
            assert abs(ua[u] * share - ub[u]) < 1e-3, (name, u, ua[u], ub[u])
    assert ua["sm_active"] <= ua["busy"] <= 1 and ua["busy"] >= ub["busy"], name
load = lambda f: json.load(open(f"{tmp}/{f}.json"))
b, a, dry, db, da = (load(f) for f in ("before", "after", "dry", "d_before", "d_after"))

# The naive run reclaims nothing; the after run's real utilization is higher, and reclaim
# happened, handed capacity back and other work used part of it.
assert b["reclaim"]["enabled"] is False and b["workloads"]["stopped"] == 0
assert a["sm_active_utilization"] > b["sm_active_utilization"], (a["sm_active_utilization"], b["sm_active_utilization"])
ra = a["reclaim"]
assert ra["enabled"] and not ra["dry_run"], ra
assert ra["reclaims"] > 0 and ra["reclaims_by_kind"] == {"notebook": ra["reclaims"]}, ra
assert ra["notifications"] >= ra["reclaims"], ra
assert a["workloads"]["stopped"] == ra["reclaims"]
assert 0 < ra["gpu_hours_reused"] <= ra["gpu_hours_reclaimed"], ra

# Dry run: counts, stops nothing, changes nothing in the simulated world (only the event
# count grows, by the reclaimer's own wake-ups).
rd = dry["reclaim"]
assert rd["dry_run"] and rd["reclaims"] == 0 and rd["would_reclaim"] > 0, rd
assert rd["would_reclaim_gpu_hours"] > 0 and rd["gpu_hours_reused"] == 0, rd
for k in ("allocation_rate", "sm_active_utilization", "allocated_gpu_hours", "workloads",
          "queue_wait_seconds_by_team", "series"):
    assert dry[k] == b[k], (k, dry[k], b[k])

# The diagnosis of the naive run finds the causes the after run addresses ...
wb, wa = db["waste_gpu_hours_by_cause"], da["waste_gpu_hours_by_cause"]
for cause in ("zombie", "over_request", "queueing"):
    assert wb.get(cause, 0) > 0, cause
    assert any(r["cause"] == cause for r in db["recommendations"]), cause
# ... and right-sizing says what the over-requesting templates should ask for and which light
# 1-GPU sizes fit a MIG instance; the after scenario asks exactly that.
rows = {r["class"]: r for r in db["right_sizing"]}
gens = {g["name"]: g for g in yaml.safe_load(open(after_yaml))["generators"]}
resized = [r for r in db["right_sizing"] if r["gpu_hours_freed"] > 0]
assert resized, db["right_sizing"]
for r in resized:
    team, template = r["class"].split("/")
    assert r["recommended_gpus_per_pod"] < r["requested_gpus_per_pod"], r
    assert gens[template]["gpus_per_pod"] == r["recommended_gpus_per_pod"], (template, r)
    assert r["recommendation"], r
assert rows["finetuning/finetune-full"]["recommended_gpus_per_pod"] == 8
shared = [r for r in db["right_sizing"] if r["gpu_hours_freed_by_sharing"] > 0]
assert shared, db["right_sizing"]
for r in shared:
    template = r["class"].split("/")[1]
    assert r["requested_gpus_per_pod"] == 1 and r["mig_profile"], r
    assert gens[template]["gpus_per_pod"] == 1, template
    assert gens[template]["mig_profile"] == r["mig_profile"], (template, r)
# The MIG pods were placed (their own pod-size row), and they hold a share of a GPU: the
# after run allocates fewer GPU-hours to inference although the same replicas run.
assert "shared" not in b["queue_wait_seconds_by_pod_size"]
assert a["queue_wait_seconds_by_pod_size"]["shared"]["count"] > 0, a["queue_wait_seconds_by_pod_size"]
ib, ia = b["usage_by_kind"]["inference"], a["usage_by_kind"]["inference"]
assert ia["allocated_gpu_hours"] < ib["allocated_gpu_hours"], (ia, ib)
# Same work: within 1 % (replicas scale on the hour; their starts land differently).
assert abs(ia["sm_active_gpu_hours"] - ib["sm_active_gpu_hours"]) < 0.01 * ib["sm_active_gpu_hours"], (ia, ib)
# After: less zombie and over-request waste, and right-sizing has nothing left to free.
assert wa.get("zombie", 0) < wb["zombie"], (wa, wb)
assert wa.get("over_request", 0) < wb["over_request"], (wa, wb)
assert all(r["gpu_hours_freed"] == 0 and r["gpu_hours_freed_by_sharing"] == 0
           for r in da["right_sizing"]), da["right_sizing"]
# The light pods compute on instances their size: they are no longer low-efficiency waste.
assert wa.get("low_efficiency", 0) < wb["low_efficiency"], (wa, wb)
for d in (db, da):
    for k in ("allocation_rate", "sm_active_utilization", "waste_gpu_hours_by_cause",
              "recommendations"):
        assert k in d, k
PY

# Same scenario, same report, byte for byte.
"$bin" twin run "$after" --json | cmp - "$tmp/after.json"

# Text and HTML carry the reclaim section; diagnose prints its right-sizing lines.
"$bin" twin run "$before" --reclaim --html "$tmp/r.html" >"$tmp/r.txt"
grep -q "^Idle reclaim" "$tmp/r.txt"
grep -q "reused by other work" "$tmp/r.txt"
grep -q "<h2>Idle reclaim</h2>" "$tmp/r.html"
"$bin" diagnose --twin "$before" | grep -q "finetuning/finetune-lora: request 4 GPUs per pod instead of 8"

# Bad input: exclusive flags, and a reclaim section naming file, line and field.
if "$bin" twin run "$before" --reclaim --reclaim-dry-run 2>/dev/null; then
  echo "--reclaim with --reclaim-dry-run accepted"; exit 1
fi
sed 's/^name: case1-low-utilization$/name: bad\nreclaim: {notify_after_minutes: 90, reclaim_after_minutes: 60}/' \
  "$before" >"$tmp/bad.yaml"
if "$bin" twin run "$tmp/bad.yaml" 2>"$tmp/err"; then echo "bad reclaim section accepted"; exit 1; fi
grep -q "bad.yaml:[0-9]*:[0-9]*: reclaim.reclaim_after_minutes: must be greater than" "$tmp/err" \
  || { cat "$tmp/err"; exit 1; }
echo "case1_before_after: ok"
