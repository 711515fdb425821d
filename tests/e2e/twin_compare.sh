#!/usr/bin/env bash
# steward twin compare: the guide's case 2 without and with limits side by side (text, JSON with
# both reports and the deltas, HTML with both reports).
set -euo pipefail
bin=${1:?usage: twin_compare.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$bin" twin compare examples/case2/scenario.yaml --policy examples/case2/no-limits.yaml \
  --vs-policy examples/case2/with-limits.yaml --json --html "$tmp/c.html" >"$tmp/c.json"
python3 - "$tmp/c.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
b, a, d = j["before"], j["after"], j["delta"]
assert b["label"] == "no-limits" and a["label"] == "with-limits", (b["label"], a["label"])
rb, ra = b["report"], a["report"]
# The deltas are after - before of the two reports.
for team in ("team-a", "team-b"):
    for p in ("p50", "p95", "p99"):
        want = ra["queue_wait_seconds_by_team"][team][p] - rb["queue_wait_seconds_by_team"][team][p]
        assert abs(d["queue_wait_seconds_by_team." + team][p] - want) < 0.2, (team, p)
# Case 2: team-b starves without limits and is admitted quickly with them; the alert fires only
# in the first run; only the second preempts (team-a's checkpointed training).
assert rb["queue_wait_seconds_by_team"]["team-b"]["p99"] > 3 * 3600
assert ra["queue_wait_seconds_by_team"]["team-b"]["p99"] < 1800
assert len(rb["tenant_alerts"]) == 1 and not ra["tenant_alerts"]
assert rb["preemptions"]["training"] == 0 < ra["preemptions"]["training"]
assert d["alerts"]["tenant_alerts"] == -1
PY
[ "$(grep -o '<iframe' "$tmp/c.html" | wc -l)" = 2 ] || { echo "HTML lacks both reports"; exit 1; }
# Text mode prints the team-b wait rows; a compare without a second run is refused.
"$bin" twin compare examples/case2/scenario.yaml --policy examples/case2/no-limits.yaml \
  --vs-policy examples/case2/with-limits.yaml | grep -q "queue_wait_seconds_by_team.team-b"
if "$bin" twin compare examples/case2/scenario.yaml --policy examples/case2/no-limits.yaml \
     >/dev/null 2>"$tmp/err"; then echo "compare without --vs-* accepted"; exit 1; fi
grep -q -- "--vs-policy" "$tmp/err"
echo "twin_compare: ok"
