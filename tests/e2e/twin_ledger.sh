#!/usr/bin/env bash
# End-to-end: `twin run --ledger` writes the showback ledger that `cost report` reads, and a
# re-run of the same windows replaces them instead of double counting.
set -euo pipefail
bin=${1:?usage: twin_ledger.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" twin run --days 1 --seed 1 --ledger "$tmp/l.db" --json >"$tmp/r.json"
"$bin" cost report --db "$tmp/l.db" --window 1d --aggregate team --csv >"$tmp/a.csv"
"$bin" twin run --days 1 --seed 1 --ledger "$tmp/l.db" >/dev/null
"$bin" cost report --db "$tmp/l.db" --window 1d --aggregate team --csv >"$tmp/b.csv"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || { echo "re-run changed the ledger (double count?)"; exit 1; }
python3 - "$tmp/r.json" "$tmp/a.csv" <<'PY'
import csv, json, sys
report = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert {r["name"] for r in rows} == set(report["gpu_hours_by_team"]), rows
for r in rows:
    want = report["gpu_hours_by_team"][r["name"]]
    assert abs(float(r["allocated_gpu_hours"]) - want) <= 0.01 + 1e-6 * want, (r["name"], r["allocated_gpu_hours"], want)
PY
echo "twin_ledger: ok"
