#!/usr/bin/env bash
# End-to-end: `steward serve` on a free loopback port: the API answers, /metrics parses with
# Steward's own parser, controls work (faults included: the remediation loop cordons and groups
# incidents), bad requests get JSON 4xx, and SIGTERM stops it cleanly.
set -euo pipefail
bin=${1:?usage: serve_api.sh STEWARD}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/log" >&2 || true; exit 1; }

# A short horizon at a high speed-up: the twin runs live for about a second, then stands still,
# so answers read in separate requests (the overview, the incident list) describe one instant
# and random faults cannot land between them. Waits are generous: CI machines are loaded.
"$bin" serve --port 0 --speed 3600 --days 0.05 >"$tmp/log" 2>&1 & pid=$!
port=
for _ in $(seq 1 600); do
  port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "serve printed no address"
base="http://127.0.0.1:$port"
for _ in $(seq 1 600); do
  curl -sf "$base/api/overview" | grep -c '"finished":true' >/dev/null && break
  sleep 0.1
done
curl -sf "$base/api/overview" | grep -c '"finished":true' >/dev/null || fail "the twin did not reach its horizon"

curl -sf "$base/api/overview" -o "$tmp/o.json" || fail "GET /api/overview"
python3 - "$tmp/o.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
for k in ["sim_time", "gpus_total", "gpus_in_use", "gpus_idle", "gpus_faulty", "gpus_cordoned",
          "workloads_running", "workloads_pending", "allocation_rate", "sm_active_utilization"]:
    assert k in o, k
assert o["gpus_total"] == 10240, o["gpus_total"]
assert o["gpus_in_use"] + o["gpus_idle"] + o["gpus_faulty"] + o["gpus_cordoned"] == 10240
PY

curl -sf "$base/metrics" -o "$tmp/metrics.prom" || fail "GET /metrics"
"$bin" metrics parse "$tmp/metrics.prom" --json >"$tmp/m.json" || fail "steward metrics parse rejects /metrics"
grep -q '^steward_gpus{state="in_use"} ' "$tmp/metrics.prom" || fail "no steward_gpus series"
curl -sf "$base/metrics/dcgm" -o "$tmp/dcgm.prom" || fail "GET /metrics/dcgm"
"$bin" metrics parse "$tmp/dcgm.prom" --json >"$tmp/d.json" || fail "steward metrics parse rejects /metrics/dcgm"
python3 - "$tmp/d.json" <<'PY' || fail "/metrics/dcgm does not carry every GPU"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["gpus"] == 10240, j["gpus"]
PY

for p in nodes racks queues workloads incidents cost timeseries; do
  curl -sf "$base/api/$p" -o "$tmp/$p.json" || fail "GET /api/$p"
  python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/$p.json" || fail "/api/$p is not JSON"
done
curl -sf "$base/" | grep -c 'data-key="gpus_in_use"' >/dev/null || fail "dashboard page"

# Controls.
code=$(curl -s -o "$tmp/post.json" -w '%{http_code}' -X POST "$base/api/workloads" \
  -d '{"team":"research","kind":"training","pods":2,"gpus_per_pod":8,"duration_hours":1,"name":"e2e-job"}')
[ "$code" = 201 ] || fail "POST /api/workloads answered $code: $(cat "$tmp/post.json")"
curl -sf "$base/api/workloads/e2e-job" >/dev/null || fail "submitted workload not listed"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '' "$base/api/nodes/h100-1279/cordon")
[ "$code" = 200 ] || fail "cordon answered $code"
curl -sf "$base/api/nodes/h100-1279" | python3 -c "import json,sys; assert json.load(sys.stdin)['cordoned']" \
  || fail "node not cordoned"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{"gpus":100}' "$base/api/queues/research/quota")
[ "$code" = 200 ] || fail "quota answered $code"

# Faults: XID 79 on a node, a rack event; the remediation loop reacts and groups the incidents.
code=$(curl -s -o "$tmp/fault.json" -w '%{http_code}' -X POST -d '{"xid":79,"gpu":3}' "$base/api/nodes/h100-1278/fault")
[ "$code" = 200 ] || fail "node fault answered $code: $(cat "$tmp/fault.json")"
code=$(curl -s -o "$tmp/rack.json" -w '%{http_code}' -X POST -d '{"xid":74}' "$base/api/racks/rack-100/fault")
[ "$code" = 200 ] || fail "rack fault answered $code: $(cat "$tmp/rack.json")"
curl -sf "$base/api/overview" -o "$tmp/o2.json" || fail "GET /api/overview after faults"
curl -sf "$base/api/incidents" -o "$tmp/inc.json" || fail "GET /api/incidents after faults"
curl -sf "$base/api/nodes/h100-1278" -o "$tmp/n.json" || fail "GET the faulted node"
python3 - "$tmp/o2.json" "$tmp/inc.json" "$tmp/n.json" "$tmp/rack.json" <<'PY' || fail "faults not visible"
import json, sys
o, inc, n, rack = (json.load(open(p)) for p in sys.argv[1:])
assert o["remediation"] is True
assert o["gpus_faulty"] >= 1 + 32, o["gpus_faulty"]   # GPU 3 of h100-1278, every GPU of rack 100
assert n["gpus"][3] == "f", n["gpus"]
assert n["remediation"] != "healthy", n["remediation"]
assert rack["nodes"] == ["h100-0400", "h100-0401", "h100-0402", "h100-0403"], rack["nodes"]
scopes = {(i["scope"], i["subject"]) for i in inc["incidents"]}
assert ("rack", "rack-100") in scopes, scopes
assert ("node", "h100-1278") in scopes, scopes
assert o["incidents_open"] == len(inc["incidents"]), (o["incidents_open"], len(inc["incidents"]))
PY
code=$(curl -s -o "$tmp/err.json" -w '%{http_code}' -X POST -d '{"xid":4242}' "$base/api/nodes/h100-0000/fault")
[ "$code" = 400 ] || fail "unknown XID answered $code"

# Bad requests: 4xx with a JSON error body.
for req in "GET /api/workloads?limit=abc 400" "GET /api/nope 404" "DELETE /api/overview 405" \
           "POST /api/queues/nobody/quota 404"; do
  set -- $req
  code=$(curl -s -o "$tmp/err.json" -w '%{http_code}' -X "$1" -d '{"gpus":1}' "$base$2")
  [ "$code" = "$3" ] || fail "$1 $2 answered $code, want $3"
  python3 -c "import json,sys; assert 'message' in json.load(open(sys.argv[1]))['error']" "$tmp/err.json" \
    || fail "$1 $2: no JSON error body"
done

kill -TERM "$pid"
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "still running 30 s after SIGTERM"
wait "$pid" && rc=0 || rc=$?
pid=
[ "$rc" = 0 ] || fail "exit code $rc after SIGTERM"
grep -q "SIGTERM received" "$tmp/log" || fail "no shutdown message"
echo "serve_api: ok"
