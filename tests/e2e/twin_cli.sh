#!/usr/bin/env bash
# End-to-end: `steward twin run` and `twin validate` on the built-in default and bad input.
set -euo pipefail
bin=${1:?usage: twin_cli.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" twin run --days 2 --seed 5 --json >"$tmp/a.json"
"$bin" twin run --days 2 --seed 5 --json >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "two runs with one seed differ"
python3 - "$tmp/a.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ["allocation_rate", "busy_utilization", "sm_active_utilization", "idle_allocated_gpu_hours",
          "fragmentation", "pending_by_reason", "queue_wait_seconds", "gpu_hours_by_team"]:
    assert k in j, k
assert j["total_gpus"] == 10240
assert 0 < j["sm_active_utilization"] < j["busy_utilization"] < j["allocation_rate"] <= 1
for tier in ("production", "training", "dev"):
    assert set(("p50", "p95", "p99")) <= set(j["queue_wait_seconds"][tier]), tier
assert len(j["gpu_hours_by_team"]) == 6
PY

"$bin" twin run --days 1 --html "$tmp/r.html" >"$tmp/text"
grep -q "real utilization (SM-active)" "$tmp/text" || fail "text report lacks the SM-active line"
grep -q "<svg" "$tmp/r.html" || fail "HTML report has no chart"
! grep -q "http" "$tmp/r.html" || fail "HTML report must be self-contained"

"$bin" twin validate examples/default.yaml >/dev/null || fail "default scenario does not validate"
printf 'cluster:\n  nodes: [1\n' >"$tmp/bad.yaml"
if "$bin" twin validate "$tmp/bad.yaml" 2>"$tmp/err"; then fail "broken YAML accepted"; fi
grep -q "bad.yaml:3" "$tmp/err" || fail "error lacks file:line: $(cat "$tmp/err")"
printf 'cluster:\n  gpu_models: [{name: H100}]\n  pools: [{name: p, nodes: 2, gpu_model: H100, gpus: 8}]\nteams: []\n' >"$tmp/typo.yaml"
if "$bin" twin run "$tmp/typo.yaml" 2>"$tmp/err"; then fail "unknown field accepted"; fi
grep -q "cluster.pools\[0\].gpus: unknown field" "$tmp/err" || fail "typo not named: $(cat "$tmp/err")"
"$bin" twin run /nonexistent.yaml 2>/dev/null && fail "missing file accepted"
"$bin" --help | grep -c twin >/dev/null || fail "--help lacks twin"
"$bin" twin run --help | grep -c -- "--seed" >/dev/null || fail "twin run --help lacks --seed"
echo "twin_cli: ok"
