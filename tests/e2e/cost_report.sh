#!/usr/bin/env bash
# End-to-end: `steward cost report|review|serve` on a small ledger written with the sqlite3 CLI
# from `steward cost schema` (the twin's --ledger writer is tested by the twin's own tests).
# Usage: bash tests/e2e/cost_report.sh path/to/steward   (from the repo root)
set -euo pipefail
bin=${1:?usage: cost_report.sh STEWARD_BINARY}
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v sqlite3 >/dev/null || fail "sqlite3 CLI not installed (scripts/install-deps.sh)"

db=$tmp/ledger.db
"$bin" cost schema | sqlite3 "$db"
# One hour, 2026-01-01T00:00Z (the twin's default epoch): 8 H100 GPU-hours of capacity at
# 2 $/GPU-h. Team ml holds 4 GPU-h (2 SM-active), team web a MIG 1g slice (1/7 GPU-h).
sqlite3 "$db" <<'SQL'
INSERT INTO windows(id, start_s, end_s) VALUES (1, 1767225600, 1767229200);
INSERT INTO window_models VALUES (1, 'H100', 8, 2.0);
INSERT INTO allocations(id, window_id, workload, team, namespace, gpu_model, gpu_share,
  allocated_gpu_hours, busy_gpu_hours, sm_active_gpu_hours)
  VALUES (1, 1, 'train-1', 'ml', 'research', 'H100', 1, 4, 3, 2),
         (2, 1, 'notebook-1', 'web', 'serving', 'H100', 0.142857142857143, 0.142857142857143, 0.1, 0.05);
INSERT INTO allocation_labels VALUES (1, 'app', 'llm'), (2, 'app', 'ui');
INSERT INTO allocation_waste VALUES (1, 'over_request', 2);
SQL

# CSV: a header plus one row per team.
"$bin" cost report --db "$db" --window 1d --aggregate team --csv >"$tmp/c.csv"
[ "$(wc -l <"$tmp/c.csv")" -eq 3 ] || fail "expected header + 2 rows, got: $(cat "$tmp/c.csv")"
head -1 "$tmp/c.csv" | grep -c '^window_start,window_end,name,gpu_hours,' >/dev/null || fail "bad CSV header"
grep -q '^2026-01-01T00:00:00Z,2026-01-02T00:00:00Z,ml,4.0,4.0,0.0,3.0,2.0,8.0,0.0,8.0,0.5,0.75,2.0,2.0$' "$tmp/c.csv" \
  || fail "ml row wrong: $(grep ',ml,' "$tmp/c.csv")"

# JSON: OpenCost's envelope; idle shared by cost (8 - 4 - 1/7 = 3.85714 GPU-h x 2 = 7.71429 $).
"$bin" cost report --db "$db" --window 1d --aggregate team --json --share-idle >"$tmp/r.json"
python3 - "$tmp/r.json" <<'PY' || fail "JSON report"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["code"] == 200 and j["status"] == "success", j
ml, web = j["data"][0]["ml"], j["data"][0]["web"]
idle = (8 - 4 - 1 / 7) * 2
cost_ml, cost_web = 8, 2 / 7
assert abs(ml["totalCost"] - (cost_ml + idle * cost_ml / (cost_ml + cost_web))) < 1e-4, ml["totalCost"]
assert abs(web["gpuCost"] - (cost_web + idle * cost_web / (cost_ml + cost_web))) < 1e-4, web["gpuCost"]
assert "__idle__" not in j["data"][0]
assert ml["gpuSmActiveHours"] == 2 and ml["gpuEfficiency"] == 0.5
PY

# Label aggregation with the idle row apart.
"$bin" cost report --db "$db" --window today --aggregate label:app --include-idle --csv >"$tmp/l.csv"
grep -q ',__idle__,3.85714,0.0,3.85714,' "$tmp/l.csv" || fail "no __idle__ row: $(cat "$tmp/l.csv")"
grep -q ',llm,' "$tmp/l.csv" && grep -q ',ui,' "$tmp/l.csv" || fail "label rows missing"

# Text table and the monthly review.
"$bin" cost report --db "$db" --window 1d --aggregate namespace | grep -c research >/dev/null || fail "table"
"$bin" cost review --db "$db" --top 1 --json >"$tmp/v.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert [r['name'] for r in j['rows']]==['ml'], j" "$tmp/v.json" \
  || fail "review ranking"

# Errors: clear message, exit 1.
if "$bin" cost report --db "$tmp/missing.db" --window 1d --aggregate team 2>"$tmp/e"; then fail "missing db accepted"; fi
grep -q 'no such ledger' "$tmp/e" || fail "missing-db message: $(cat "$tmp/e")"
if "$bin" cost report --db "$db" --window someday --aggregate team 2>"$tmp/e"; then fail "bad window accepted"; fi
grep -q 'illegal window' "$tmp/e" || fail "bad-window message: $(cat "$tmp/e")"
[ ! -e "$tmp/missing.db" ] || fail "report created a ledger"

# The cost model's prices.
"$bin" cost prices --cost-model examples/cost/cost-model.yaml | grep -c '^H100 .*1.19315' >/dev/null || fail "prices"

# serve: /allocation on a free loopback port.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$bin" cost serve --db "$db" --port "$port" >"$tmp/s.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 50); do
  curl -sf "http://127.0.0.1:$port/allocation?window=1d&aggregate=team" -o "$tmp/a.json" && break
  sleep 0.1
done
[ -s "$tmp/a.json" ] || fail "no /allocation answer on port $port: $(cat "$tmp/s.log")"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['data'][0]['ml']['gpuCost']==8, j" "$tmp/a.json" \
  || fail "/allocation body"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/allocation/compute?window=bad")
[ "$code" = 400 ] || fail "/allocation/compute?window=bad answered $code"
echo "cost e2e ok"
