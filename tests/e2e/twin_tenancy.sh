#!/usr/bin/env bash
# End-to-end: a scenario's tenancy section. The twin report's findings equal what
# `steward audit tenancy` finds on the same objects (the section's files, the twin's nodes as
# `steward twin nodes` prints them, the scenario's Kueue policy); `steward serve` serves them on
# /api/tenancy and the dashboard has their panel; without the section the endpoint says so.
set -euo pipefail
bin=${1:?usage: twin_tenancy.sh STEWARD}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/log" >&2 2>/dev/null || true; exit 1; }
ex=examples/tenancy

"$bin" twin validate "$ex/scenario.yaml" | grep -q "tenancy findings" || fail "validate skips tenancy"
# A malformed tenancy object fails validate and run, naming the scenario, the file, line, field.
mkdir -p "$tmp/bad"
cp -r "$ex/cluster" "$ex/kueue-twin.yaml" "$ex/scenario.yaml" "$tmp/bad/"
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {}\n' >"$tmp/bad/cluster/namespaces.yaml"
for cmd in validate run; do
  rc=0; "$bin" twin $cmd "$tmp/bad/scenario.yaml" >/dev/null 2>"$tmp/bad.err" || rc=$?
  [ "$rc" != 0 ] && grep -q "scenario.yaml:[0-9]*: tenancy: .*namespaces.yaml:3:11: Namespace: metadata.name: required" "$tmp/bad.err" \
    || fail "twin $cmd with a bad tenancy object: exit $rc: $(cat "$tmp/bad.err")"
done
"$bin" twin run "$ex/scenario.yaml" --json >"$tmp/report.json"
"$bin" twin run "$ex/scenario.yaml" --html "$tmp/report.html" >"$tmp/report.txt"
grep -q "Tenant isolation" "$tmp/report.txt" || fail "text report has no tenancy section"
grep -q "Tenant isolation" "$tmp/report.html" || fail "HTML report has no tenancy table"
"$bin" twin nodes "$ex/scenario.yaml" --at 0 >"$tmp/nodes.json"
files=$(/usr/bin/python3 -c "import yaml,sys; print(' '.join('$ex/'+f for f in yaml.safe_load(open('$ex/scenario.yaml'))['tenancy']['files']))")
# shellcheck disable=SC2086
"$bin" audit tenancy $files "$tmp/nodes.json" "$ex/kueue-twin.yaml" --json --fail-on never >"$tmp/cli.json"

"$bin" serve "$ex/scenario.yaml" --port 0 --speed 3600 --days 0.05 >"$tmp/log" 2>&1 & pid=$!
port=
for _ in $(seq 1 600); do
  port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "serve printed no address"
curl -sf "http://127.0.0.1:$port/api/tenancy" -o "$tmp/api.json" || fail "GET /api/tenancy"
curl -sf "http://127.0.0.1:$port/" -o "$tmp/index.html" || fail "GET /"
curl -sf "http://127.0.0.1:$port/app.js" -o "$tmp/app.js" || fail "GET /app.js"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$port/api/tenancy")
[ "$code" = 405 ] || fail "POST /api/tenancy: $code, want 405"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=

"$bin" serve --port 0 --speed 3600 --days 0.01 >"$tmp/log" 2>&1 & pid=$!
port=
for _ in $(seq 1 600); do
  port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "serve (default scenario) printed no address"
curl -sf "http://127.0.0.1:$port/api/tenancy" -o "$tmp/api_default.json" || fail "GET /api/tenancy (default)"

/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
load = lambda f: json.load(open(f"{tmp}/{f}"))
report, cli, api, default = load("report.json"), load("cli.json"), load("api.json"), load("api_default.json")
key = lambda f: (f["id"], f["severity"], f["tenant"], tuple(f["objects"]), f["message"], f["fix"])
twin = [key(f) for f in report["tenancy"]["findings"]]
assert twin, "the scenario's tenancy section yields findings"
assert twin == [key(f) for f in cli["findings"]], "twin report and audit CLI disagree"
assert api["enabled"] is True and [key(f) for f in api["findings"]] == twin
assert report["tenancy"]["summary"]["tenants"] == cli["summary"]["tenants"]
ids = {f[0] for f in twin}
# What only the twin's side supplies: its untainted team-b pool and the flavor reaching it.
untainted = [f for f in twin if f[0] == "nodes.gpu-pool-untainted"]
assert len(untainted) == 1 and untainted[0][2] == "team-b", untainted
assert all(o.startswith("Node/b-h100-") for o in untainted[0][3]), untainted
assert any(f[0] == "nodes.flavor-reaches-other-pool" and f[2] == "team-a" for f in twin)
assert "rbac.cluster-admin" in ids and "sharing.hami-no-gpumem" in ids
assert default == {"enabled": False, "findings": []}, default
PY
grep -q 'id="tenancy-panel"' "$tmp/index.html" || fail "dashboard has no tenancy panel"
grep -q '/api/tenancy' "$tmp/app.js" || fail "dashboard does not load /api/tenancy"
echo "twin tenancy e2e: ok"
