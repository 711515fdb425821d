#!/usr/bin/env bash
# End-to-end: the guide's case 1 through `steward diagnose --twin`.
set -euo pipefail
bin=${1:?usage: diagnose_case1.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" diagnose --twin examples/case1/scenario.yaml --json >"$tmp/d.json"
"$bin" twin run examples/case1/scenario.yaml --json >"$tmp/r.json"
python3 - "$tmp/d.json" "$tmp/r.json" <<'PY'
import json, sys
d, r = (json.load(open(f)) for f in sys.argv[1:])
# Same run, same answer: the diagnosis agrees with the twin's own report.
for k in ("allocation_rate", "sm_active_utilization"):
    assert abs(d[k] - r[k]) < 1e-3, (k, d[k], r[k])
assert 0.30 <= d["sm_active_utilization"] <= 0.40, d["sm_active_utilization"]
assert d["allocation_rate"] > 2 * d["sm_active_utilization"] * 0.9
for cause in ("zombie", "over_request", "dataloader_stall", "low_efficiency"):
    assert d["waste_gpu_hours_by_cause"].get(cause, 0) > 0, cause
assert d["recommendations"] and all(x["action"] for x in d["recommendations"])
assert any(t["name"] == "research" and t["top_cause"] == "zombie" for t in d["top_teams"]), d["top_teams"]
PY
"$bin" diagnose --twin examples/case1/scenario.yaml | grep -q "Recommendations"
if "$bin" diagnose 2>/dev/null; then echo "diagnose without a source accepted"; exit 1; fi
if "$bin" diagnose --twin /nonexistent.yaml 2>/dev/null; then echo "missing scenario accepted"; exit 1; fi
echo "diagnose_case1: ok"
