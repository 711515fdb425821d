#!/usr/bin/env bash
# End-to-end: `steward twin run` and `twin validate` on the built-in default and bad input.
set -euo pipefail
bin=${1:?usage: twin_cli.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" twin run --days 2 --seed 5 --json --events "$tmp/ev.db" >"$tmp/a.json"
"$bin" twin run --days 2 --seed 5 --json --events "$tmp/ev.db" >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "two runs with one seed differ"
# The event log holds both runs, complete; their rows are identical (the run is deterministic).
"$bin" twin events "$tmp/ev.db" --runs --json >"$tmp/runs.json"
"$bin" twin events "$tmp/ev.db" --run 1 --json >"$tmp/ev1.json"
"$bin" twin events "$tmp/ev.db" --json >"$tmp/ev2.json"  # Default: the latest complete run.
cmp -s "$tmp/ev1.json" "$tmp/ev2.json" || fail "two runs with one seed logged different events"
python3 - "$tmp/runs.json" "$tmp/ev2.json" "$tmp/a.json" <<'PY'
import json, sys
runs, ev, rep = (json.load(open(p)) for p in sys.argv[1:4])
assert [r["complete"] for r in runs] == [True, True], runs
assert runs[0]["events"] == runs[1]["events"] == len(ev), (runs, len(ev))
kinds = {}
for e in ev:
    kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
assert kinds["finish"] == rep["workloads"]["completed"], (kinds, rep["workloads"])
assert kinds["arrive"] >= kinds["admit"] > 0 and kinds["place"] >= kinds["admit"], kinds
lost = sum(e["lost_gpu_hours"] for e in ev)
assert abs(lost - rep["lost_gpu_hours"]) < 0.01 + 1e-6 * lost, (lost, rep["lost_gpu_hours"])
one = ev[0]["workload"]
story = [e["kind"] for e in ev if e["workload"] == one]
assert story[:3] == ["arrive", "admit", "place"], story
PY
w=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["workload"])' "$tmp/ev2.json")
"$bin" twin events "$tmp/ev.db" --workload "$w" | grep -c " arrive " >/dev/null ||
  fail "twin events --workload lacks the arrival of $w"
if "$bin" twin events "$tmp/ev.db" --workload no/such 2>"$tmp/err"; then fail "unknown workload accepted"; fi
grep -c "no events of workload" "$tmp/err" >/dev/null || fail "unclear error: $(cat "$tmp/err")"
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
# Sized before it starts: a limit below the estimate refuses the run with the estimate.
if "$bin" twin run --memory-limit 1M 2>"$tmp/err"; then fail "run over --memory-limit accepted"; fi
grep -q "<default>: the run would need about .* more than the limit of 1 MB (--memory-limit)" \
  "$tmp/err" || fail "memory refusal unclear: $(cat "$tmp/err")"
if "$bin" twin run --memory-limit 12X 2>"$tmp/err"; then fail "bad --memory-limit accepted"; fi
grep -q -- "--memory-limit 12X: expected a size" "$tmp/err" || fail "bad limit: $(cat "$tmp/err")"
"$bin" twin run --days 1 --memory-limit none --json >/dev/null || fail "--memory-limit none refused"
"$bin" --help | grep -c twin >/dev/null || fail "--help lacks twin"
"$bin" --help | grep -q -- "--help-all prints every command" || fail "--help does not point to --help-all"
"$bin" twin run --help | grep -c -- "--seed" >/dev/null || fail "twin run --help lacks --seed"
[ "$("$bin" --version)" = "steward $(sed -n 's/^project(steward VERSION \([0-9.]*\) .*/\1/p' CMakeLists.txt)" ] || fail "--version: $("$bin" --version)"
# --help-all: every command with its flags and its subcommands (operate's flags, cost review).
"$bin" --help-all >"$tmp/help-all"
grep -q -- "--max-evictions-per-minute" "$tmp/help-all" && grep -q "review" "$tmp/help-all" ||
  fail "--help-all lacks commands' flags or subcommands"
# ... down to nested commands' flags (twin run --memory-limit, cost review --top), and from a
# command down (twin --help-all: twin run's flags, nothing of cost).
grep -q -- "--memory-limit" "$tmp/help-all" && grep -q -- "--top" "$tmp/help-all" ||
  fail "--help-all lacks nested commands' flags"
"$bin" twin --help-all >"$tmp/help-twin"
grep -q -- "--reclaim-dry-run" "$tmp/help-twin" || fail "twin --help-all lacks twin run's flags"
grep -q -- "--top" "$tmp/help-twin" && fail "twin --help-all prints other commands"
"$bin" cost review --help | grep -q -- "--top" || fail "cost review --help lacks --top"
# Out-of-range flags name a readable range (CLI11's own check printed 0 to 1.797e308 in full).
if "$bin" twin run --days -5 2>"$tmp/e"; then fail "--days -5 accepted"; fi
grep -q -- "--days: must be greater than 0, got -5" "$tmp/e" || fail "--days -5: $(cat "$tmp/e")"
if "$bin" twin run --days abc 2>"$tmp/e"; then fail "--days abc accepted"; fi
grep -q "'abc' is not a number" "$tmp/e" || fail "--days abc: $(cat "$tmp/e")"
[ "$(wc -c <"$tmp/e")" -lt 200 ] || fail "error too long: $(cat "$tmp/e")"
echo "twin_cli: ok"
