#!/usr/bin/env bash
# End-to-end: the guide's case 2 under both Kueue policies, and `twin explain`.
set -euo pipefail
bin=${1:?usage: twin_case2.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for p in no-limits with-limits; do
  "$bin" twin run examples/case2/scenario.yaml --policy examples/case2/$p.yaml --json >"$tmp/$p.json"
done
python3 - "$tmp/no-limits.json" "$tmp/with-limits.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for j in (a, b):
    for k in ("queue_wait_seconds_by_team", "preemptions", "lost_gpu_hours_by_team"):
        assert k in j, k
    assert set(j["queue_wait_seconds_by_team"]) == {"team-a", "team-b"}
assert [x["team"] for x in a["tenant_alerts"]] == ["team-a"], a["tenant_alerts"]
assert b["tenant_alerts"] == []
assert b["queue_wait_seconds_by_team"]["team-b"]["p99"] < a["queue_wait_seconds_by_team"]["team-b"]["p99"]
assert b["preemptions"]["training"] > 0 and b["preemptions"]["production"] == 0
PY
"$bin" twin explain examples/case2/scenario.yaml --at 34h --workload b-train-000003 >"$tmp/x"
grep -q "pending" "$tmp/x" && grep -q "quota_exhausted" "$tmp/x" || { cat "$tmp/x"; exit 1; }
"$bin" twin explain examples/case2/scenario.yaml --at 34h --workload nope 2>/dev/null && exit 1
"$bin" twin explain examples/case2/scenario.yaml --at soon --workload x 2>/dev/null && exit 1
echo "twin_case2: ok"
