#!/usr/bin/env bash
# End-to-end: every query of the Grafana dashboard (deploy/grafana/steward-dashboard.json)
# returns data from a real Prometheus scraping the twin. Grafana itself does not run here: the
# test reads the JSON, substitutes the template variables the way Grafana would, and asks
# Prometheus' HTTP API (/api/v1/query) instead.
#
#   steward serve examples/observe/scenario.yaml (faults at fixed times, Kueue queues; loopback)
#   prometheus (Debian's, loopback, free port, 1 s scrapes of /metrics and /metrics/dcgm, the
#     recording and alerting rules of deploy/prometheus/steward-rules.yaml evaluated every 1 s)
#
# Every panel target is run twice: with every variable at "All" (`.*`), and with a real team
# and pool picked from the variables' own queries; each must return at least one sample.
# Variable queries (label_values) must return values. Fails (never skips) when prometheus is
# missing: CI installs it (scripts/install-deps.sh). Everything it starts is stopped on exit.
set -euo pipefail
bin=$(realpath "${1:?usage: grafana_dashboard_queries.sh STEWARD}")
dashboard=$(realpath deploy/grafana/steward-dashboard.json)
rules=$(realpath deploy/prometheus/steward-rules.yaml)
. "$(dirname "$0")/lib/harness.sh"

prom=$(command -v prometheus || true)
[ -n "$prom" ] || prom=/usr/bin/prometheus
. "$(dirname "$0")/lib/prometheus.sh"
[ -x "$prom" ] || fail "prometheus not installed (scripts/install-deps.sh installs Debian's package)"

# 1. The twin: 10 simulated minutes per real second, so notebooks go idle, the scheduled XID and
# the bad driver rollout land in the first seconds, and counters move while Prometheus scrapes
# (no warm-up, which would have run past them before Prometheus starts).
"$bin" serve examples/observe/scenario.yaml --warmup 0 --port 0 --speed 600 >"$tmp/serve.log" 2>&1 &
pids+=($!)
port=
for _ in $(seq 1 600); do
  port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/serve.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "steward serve printed no address"

# 2. Prometheus scraping both pages and evaluating the rules.
cat >"$tmp/prometheus.yml" <<EOF2
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ['$rules']
scrape_configs:
  - job_name: steward
    static_configs: [{targets: ['127.0.0.1:$port']}]
  - job_name: dcgm
    metrics_path: /metrics/dcgm
    static_configs: [{targets: ['127.0.0.1:$port']}]
EOF2
start_prometheus "$tmp/prometheus.yml" "$tmp/data" "$tmp/prometheus.log" \
  --storage.tsdb.retention.time=1h
echo "prometheus $prom_url scraping steward serve on :$port"

# 3. Every query, until all have data (rates and recording rules need a few scrapes) or 120 s.
/usr/bin/python3 - "$prom_url" "$dashboard" <<'PY' || fail "dashboard queries without data (above)"
import json, sys, time, urllib.parse, urllib.request
url, path = sys.argv[1], sys.argv[2]
dash = json.load(open(path))

def query(q):
    body = urllib.parse.urlencode({"query": q}).encode()
    with urllib.request.urlopen(f"{url}/api/v1/query", body, timeout=10) as r:
        j = json.load(r)
    assert j["status"] == "success", j
    return j["data"]["result"]

def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))

# The shape Grafana imports: a recent schema, the data source as the ${datasource} variable on
# every panel and target (so the dashboard works with any Prometheus), unique panel ids.
assert dash.get("schemaVersion", 0) >= 36, dash.get("schemaVersion")
assert any(v["type"] == "datasource" and v["name"] == "datasource"
           for v in dash["templating"]["list"]), "no datasource variable"
ids = [p["id"] for p in panels(dash["panels"])]
assert len(ids) == len(set(ids)), "duplicate panel ids"
for p in panels(dash["panels"]):
    if p["type"] == "row": continue
    for o in [p] + p.get("targets", []):
        assert o.get("datasource", {}).get("uid") == "${datasource}", (p["title"], o.get("datasource"))
    assert p.get("targets") and p.get("gridPos"), p["title"]
targets = [(p["title"], t["refId"], t["expr"]) for p in panels(dash["panels"])
           for t in p.get("targets", []) if "expr" in t]
variables = {v["name"]: v for v in dash["templating"]["list"] if v["type"] == "query"}
assert targets and variables, "no targets or variables in the dashboard"
# Every variable is used by some target or another variable, and vice versa.
text = json.dumps([t[2] for t in targets]) + json.dumps([v["query"]["query"] for v in variables.values()])
for name in variables:
    assert f"${name}" in text, f"variable {name} is never used"

def substitute(expr, values):
    # Longest names first ($__rate_interval before $__range and so on).
    subs = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "5m", **values}
    for k in sorted(subs, key=len, reverse=True):
        expr = expr.replace(k, subs[k])
    assert "$" not in expr.replace("$1", ""), f"unsubstituted variable in {expr}"
    return expr

def label_values(q, values):
    # Grafana's label_values(METRIC_SELECTOR, LABEL) as PromQL.
    inner = substitute(q, values)
    assert inner.startswith("label_values(") and inner.endswith(")"), q
    metric, label = inner[len("label_values("):-1].rsplit(",", 1)
    label = label.strip()
    return sorted({s["metric"].get(label, "") for s in query(f"count by ({label}) ({metric})")} - {""})

all_values = {f"${n}": ".*" for n in variables}
deadline = time.time() + 120
while True:
    empty, picked = [], {}
    try:
        for name, v in variables.items():
            vals = label_values(v["query"]["query"], all_values)
            if not vals: empty.append(f"variable {name}: {v['query']['query']}")
            picked[name] = vals
        real = dict(all_values)
        if picked.get("team"): real["$team"] = picked["team"][0]
        if picked.get("pool"): real["$pool"] = picked["pool"][0]
        passes = [("All", all_values), (f"team={real['$team']} pool={real['$pool']}", real)]
        for label, values in passes:
            for title, ref, expr in targets:
                q = substitute(expr, values)
                if not query(q): empty.append(f"[{label}] {title} ({ref}): {q}")
    except (OSError, AssertionError) as e:
        empty.append(f"error: {e}")
    if not empty or time.time() > deadline:
        break
    time.sleep(2)
for e in empty: print("EMPTY", e, file=sys.stderr)
if empty: sys.exit(1)
print(f"{len(targets)} panel queries x {len(passes)} variable settings and "
      f"{len(variables)} variable queries returned data "
      f"(team values {picked['team']}, pools {picked['pool']}, {len(picked['node'])} nodes)")
PY

# 4. The rules loaded, and the scheduled faults are visible as alerts about to fire (pending or
# firing: their `for` may not have passed yet).
curl -sf "$prom_url/api/v1/rules" -o "$tmp/rules.json" || fail "GET /api/v1/rules"
/usr/bin/python3 - "$tmp/rules.json" <<'PY' || fail "rules not loaded or not evaluated cleanly"
import json, sys
groups = json.load(open(sys.argv[1]))["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
bad = [r["name"] for r in rules if r.get("health") != "ok"]
assert not bad, f"rules with errors: {bad}"
active = {r["name"] for r in rules if r["type"] == "alerting" and r.get("alerts")}
assert "StewardGPUXidError" in active, active
print(f"{len(rules)} rules healthy; active alerts: {sorted(active)}")
PY
echo "PASS grafana_dashboard_queries"
