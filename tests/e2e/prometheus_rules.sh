#!/usr/bin/env bash
# The Prometheus rules in deploy/prometheus/: Debian's promtool checks their syntax and runs
# their unit tests (steward-rules.test.yaml: input series, expected alerts firing and not
# firing, recorded values); every alert has a case where it fires and one where it does not,
# every recording rule a checked value; the PrometheusRule wrapper for the Prometheus Operator
# carries exactly the same groups.
#
# Fails (never skips) when promtool is missing: CI installs it (scripts/install-deps.sh, the
# prometheus package).
set -euo pipefail
dir=deploy/prometheus
promtool=$(command -v promtool || true)
[ -n "$promtool" ] || promtool=/usr/bin/promtool
[ -x "$promtool" ] || { echo "FAIL: promtool not installed (Debian package prometheus)" >&2; exit 1; }

"$promtool" check rules "$dir/steward-rules.yaml"
"$promtool" test rules "$dir/steward-rules.test.yaml"

/usr/bin/python3 - "$dir" <<'PY'
import sys, yaml
d = sys.argv[1]
rules = yaml.safe_load(open(f"{d}/steward-rules.yaml"))
tests = yaml.safe_load(open(f"{d}/steward-rules.test.yaml"))
alerts = {r["alert"]: r for g in rules["groups"] for r in g["rules"] if "alert" in r}
records = {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}
fires, silent, recorded = set(), set(), set()
for t in tests["tests"]:
    for a in t.get("alert_rule_test", []):
        (fires if a.get("exp_alerts") else silent).add(a["alertname"])
    for e in t.get("promql_expr_test", []):
        recorded.update(r for r in records if r in e["expr"])
problems = []
for name, r in alerts.items():
    if name not in fires: problems.append(f"alert {name}: no test where it fires")
    if name not in silent: problems.append(f"alert {name}: no test where it stays silent")
    if "severity" not in r.get("labels", {}): problems.append(f"alert {name}: no severity label")
    for k in ("summary", "description"):
        if not r.get("annotations", {}).get(k): problems.append(f"alert {name}: no {k}")
for name in sorted(records - recorded):
    problems.append(f"recording rule {name}: no promql_expr_test")
# The PrometheusRule CR wraps the same groups, byte for byte after parsing.
cr = yaml.safe_load(open(f"{d}/steward-prometheusrule.yaml"))
assert cr["apiVersion"] == "monitoring.coreos.com/v1" and cr["kind"] == "PrometheusRule", cr.get("kind")
if cr["spec"]["groups"] != rules["groups"]:
    problems.append("steward-prometheusrule.yaml differs from steward-rules.yaml: regenerate it "
                    "(docs/alerts.md, 'Prometheus Operator')")
# Runbook anchors point at sections of docs/alerts.md.
doc = open("docs/alerts.md").read().lower()
for name, r in alerts.items():
    anchor = r["annotations"].get("runbook", "").partition("#")[2]
    if not anchor or f"## {name.lower()}" not in doc:
        problems.append(f"alert {name}: no runbook section in docs/alerts.md")
for p in problems: print("FAIL:", p, file=sys.stderr)
if problems: sys.exit(1)
print(f"{len(alerts)} alerts (each firing and silent), {len(records)} recording rules tested; "
      "PrometheusRule in sync")
PY
echo "PASS prometheus_rules"
