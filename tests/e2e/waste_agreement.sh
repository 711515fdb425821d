#!/usr/bin/env bash
# End-to-end (issue 18, item 1): one twin run, one waste vocabulary. Every surface that reports
# waste names the same causes and gives the same GPU-hours per team and cause:
#
#   twin run --ledger L            the twin's exact integral, written to the ledger
#   cost report --aggregate team   OpenCost's envelope over L (gpuWasteHoursByCause)
#   cost review --aggregate team   the monthly review over L, ranked by waste cost
#   cost serve  /allocation        the same query over HTTP
#   diagnose --twin                the classifier, from the exporter's series sampled every 5 min
#   serve /metrics                 steward_waste_gpus{team,cause}: the dashboard's waste, now
#
# The ledger readers must agree exactly (one ledger, one arithmetic). The diagnosis samples, so
# it agrees within what sampling explains (as in diagnose_case1.sh). Efficient compute is not
# waste anywhere: the review never ranks a team by hours that are only not SM-active.
set -euo pipefail
bin=$(realpath "${1:?usage: waste_agreement.sh STEWARD}")
. "$(dirname "$0")/lib/harness.sh"

# The guide's case 1 (2,048 GPUs, a week): long enough that 5-minute samples see each cause's
# GPU-hours within a few percent, as diagnose_case1.sh measures for the cluster.
scenario=examples/case1/scenario.yaml
# The run's week: 2026-01-01 (the default epoch) .. 2026-01-08.
window=1767225600,1767830400
"$bin" twin run "$scenario" --json --ledger "$tmp/l.db" >"$tmp/run.json" 2>"$tmp/run.log" ||
  fail "twin run --ledger"
"$bin" cost report --db "$tmp/l.db" --window "$window" --aggregate team --accumulate --json \
  >"$tmp/report.json" || fail "cost report"
"$bin" cost review --db "$tmp/l.db" --window "$window" --aggregate team --top 0 --json \
  >"$tmp/review.json" || fail "cost review"
"$bin" cost review --db "$tmp/l.db" --window "$window" --aggregate team --top 0 \
  >"$tmp/review.txt" || fail "cost review (table)"
"$bin" diagnose --twin "$scenario" --step 5m --json >"$tmp/diagnose.json" 2>"$tmp/diagnose.log" ||
  fail "diagnose --twin"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$bin" cost serve --db "$tmp/l.db" --port "$port" >"$tmp/cost-serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/allocation?window=$window&aggregate=team&accumulate=true" \
    -o "$tmp/allocation.json" && break
  sleep 0.1
done
[ -s "$tmp/allocation.json" ] || fail "no /allocation answer"

# The dashboard's view: serve the same scenario flat out and read steward_waste_gpus.
port2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$bin" serve "$scenario" --port "$port2" --speed 100000 >"$tmp/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port2/metrics" -o "$tmp/metrics.txt" &&
    grep -q '^steward_waste_gpus' "$tmp/metrics.txt" && break
  sleep 0.1
done
grep -q '^steward_waste_gpus' "$tmp/metrics.txt" || fail "serve /metrics has no steward_waste_gpus"

python3 - "$tmp" <<'PY' || fail "the waste surfaces disagree"
import json, os, re, sys
d = sys.argv[1]
load = lambda f: json.load(open(os.path.join(d, f)))
report, review, alloc, diag = (load(f) for f in
                               ("report.json", "review.json", "allocation.json", "diagnose.json"))
vocabulary = {"zombie", "over_request", "dataloader_stall", "low_efficiency", "startup",
              "fragmentation", "queueing"}
holder = vocabulary - {"fragmentation", "queueing"}
# Per cause, what 5-minute sampling explains (diagnose_case1.sh): hold ends fall within one
# step; stalls and idle phases are seen by a sample with binomial odds.
TOLERANCE = {"over_request": 0.02, "zombie": 0.05, "dataloader_stall": 0.08}

def by_team_from_envelope(env):
    rows = env["data"][0]
    return {t: {c: h for c, h in r["gpuWasteHoursByCause"].items()}
            for t, r in rows.items() if not t.startswith("__")}

ledger = by_team_from_envelope(report)
assert ledger, report
# 1. The ledger's readers: the same teams, causes and GPU-hours.
assert by_team_from_envelope(alloc) == ledger, (alloc["data"][0], ledger)
review_rows = {r["name"]: r for r in review["rows"] if not r["name"].startswith("__")}
assert set(review_rows) == set(ledger), (sorted(review_rows), sorted(ledger))
for team, causes in ledger.items():
    r = review_rows[team]
    assert r["waste_gpu_hours_by_cause"] == causes, (team, r["waste_gpu_hours_by_cause"], causes)
    assert abs(r["waste_gpu_hours"] - sum(causes.values())) < 1e-4, (team, r)
    # Not SM-active = waste + unattributed (efficiency), never counted twice.
    assert abs(r["unused_gpu_hours"] - r["waste_gpu_hours"] - r["unattributed_gpu_hours"]) < 1e-3, r
    for c in causes:
        assert c in holder, (team, c)
# The review ranks by waste cost, not by hours that are only not SM-active.
costs = [r["waste_cost"] for r in review["rows"]]
assert costs == sorted(costs, reverse=True), costs
# Case 1's pretraining computes at 68 % SM-active, yet holds nearly twice the not-SM-active hours
# of the top waster: ranked by those it came out on top (the issue's finding). It wastes little,
# so it ranks low.
pt = review_rows["pretraining"]
assert pt["unused_gpu_hours"] > 1.5 * review["rows"][0]["unused_gpu_hours"], pt
assert pt["rank"] > 3, pt
# 2. The diagnosis: same vocabulary, same teams; per team and cause within sampling.
diag_teams = {t["name"]: t["waste_gpu_hours_by_cause"] for t in diag["top_teams"]}
assert set(diag["waste_gpu_hours_by_cause"]) <= vocabulary, diag["waste_gpu_hours_by_cause"]
for team, causes in ledger.items():
    got = diag_teams.get(team, {})
    for c, want in causes.items():
        if c in ("startup", "low_efficiency"):
            # Startup is aliased by 5-minute samples and low efficiency is applied per sample
            # in the diagnosis but to steady rates in the ledger (docs/diagnose.md): both are
            # compared in total below, not exactly.
            continue
        g = got.get(c, 0.0)
        print("  %-12s %-18s ledger %9.2f  diagnosis %9.2f" % (team, c, want, g))
        assert abs(g - want) <= max(1.0, TOLERANCE[c] * want), (team, c, g, want)
tot_ledger = sum(sum(c.values()) for c in ledger.values())
tot_diag = sum(v for k, v in diag["waste_gpu_hours_by_cause"].items() if k in holder)
assert abs(tot_diag - tot_ledger) <= 0.15 * tot_ledger, (tot_diag, tot_ledger)
# The diagnosis's top waster is the review's.
top_review = max(ledger, key=lambda t: sum(ledger[t].values()))
top_diag = max(diag_teams, key=lambda t: sum(v for k, v in diag_teams[t].items() if k in holder))
assert top_review == top_diag, (top_review, top_diag)
# 3. The dashboard: steward_waste_gpus{team, cause} uses the same causes and teams.
seen = set()
for line in open(os.path.join(d, "metrics.txt")):
    m = re.match(r'steward_waste_gpus\{(.*)\} (\S+)$', line)
    if not m:
        continue
    labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
    assert labels["cause"] in vocabulary, labels
    if "team" in labels:
        assert labels["cause"] in holder, labels
        seen.add(labels["team"])
assert set(ledger) <= seen | {""}, (sorted(ledger), sorted(seen))
print("waste agreement: %d teams; ledger %.2f GPU-h, diagnosis %.2f GPU-h of holder waste" %
      (len(ledger), tot_ledger, tot_diag))
PY
# The table says what efficiency is.
grep -q 'unattrib_h' "$tmp/review.txt" || fail "review table has no unattributed column"
echo "waste agreement ok"
