#!/usr/bin/env bash
# End-to-end: steward metrics parse / health nodes / health xid on real and crafted inputs.
set -euo pipefail
bin=$(realpath "${1:?usage: telemetry_cli.sh STEWARD}")
data=${STEWARD_DATA:-$(pwd)/../shared/data}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" metrics parse "$data/dcgm-exporter/l4-gpu-operator-scrape.prom" --json >"$tmp/m.json"
python3 - "$tmp/m.json" <<'PY' || fail "L4 summary"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["series"] == 23 and j["gpus"] == 1 and j["xids"] == [] and len(j["metrics"]) == 23, j
assert j["metrics"]["DCGM_FI_DEV_GPU_TEMP"] == 1
PY
# Reads stdin, and a scrape with an XID.
printf 'DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-1",Hostname="h"} 79\nDCGM_FI_DEV_XID_ERRORS{gpu="1",UUID="GPU-2",Hostname="h"} 0\n' \
  | "$bin" metrics parse - --json >"$tmp/x.json"
python3 -c "import json; j=json.load(open('$tmp/x.json')); assert j['xids']==[79] and j['gpus']==2, j" || fail "xid scrape"
# A broken line: exit != 0, good samples counted, line and column named.
printf '# TYPE x gauge\nx{a="1"} 1\nx{a="2" 2\n' >"$tmp/bad.prom"
if "$bin" metrics parse "$tmp/bad.prom" >"$tmp/out" 2>"$tmp/err"; then fail "accepted a broken line"; fi
grep -q "read 1 good samples" "$tmp/err" || fail "good-sample count missing: $(cat "$tmp/err")"
grep -q "bad.prom:3:9:" "$tmp/err" || fail "line:column missing: $(cat "$tmp/err")"
# Prometheus 3 quoted UTF-8 names. Bytes that are not UTF-8 are errors, and --json still prints
# (an error message quotes the bad token).
printf '# TYPE "gpu.temp" gauge\n{"gpu.temp","node.name"="n1"} 31\n' \
  | "$bin" metrics parse - --json >"$tmp/u.json"
python3 -c "import json; j=json.load(open('$tmp/u.json')); assert j['metrics']=={'gpu.temp':1} and j['error_count']==0, j" \
  || fail "quoted names"
printf 'a 1\nb{c="\xff"} 2\nd -NaN\ne \xff\n' >"$tmp/bytes.prom"
if "$bin" metrics parse "$tmp/bytes.prom" --json >"$tmp/b.json" 2>"$tmp/err"; then
  fail "accepted bytes that are not UTF-8"
fi
python3 -c "import json; j=json.load(open('$tmp/b.json')); assert j['series']==1 and j['error_count']==3, j" \
  || fail "--json with bytes that are not UTF-8: $(cat "$tmp/err")"

# Stack health on the crafted NodeList.
# Exit 1: the list has critical findings (device plugin down, MIG failed); --fail-on never is 0.
if "$bin" health nodes tests/health/testdata/stack_nodes.json --json >"$tmp/h.json"; then
  fail "critical findings but exit 0"
fi
"$bin" health nodes tests/health/testdata/stack_nodes.json --json --fail-on never >"$tmp/h0.json"
cmp -s "$tmp/h.json" "$tmp/h0.json" || fail "--fail-on changed the findings"
python3 - "$tmp/h.json" <<'PY' || fail "health nodes findings"
import json, sys
f = json.load(open(sys.argv[1]))
got = sorted((x["node"], x["check"]) for x in f)
assert ("gpu-a2", "device-plugin-down") in got and ("gpu-b1", "mig-config-mismatch") in got, got
assert all(x["hint"] for x in f) and len(f) == 6, f
PY
# An empty List (what kubectl prints without nodes) is no findings (56fc919); no object at all
# is an error.
echo '{"apiVersion":"v1","kind":"List","items":[]}' >"$tmp/empty.json"
"$bin" health nodes "$tmp/empty.json" --json >"$tmp/e.json" || fail "an empty List is an error"
[ "$(cat "$tmp/e.json")" = "[]" ] || fail "empty List findings: $(cat "$tmp/e.json")"
echo >"$tmp/none.json"
if "$bin" health nodes "$tmp/none.json" 2>"$tmp/err"; then fail "accepted input with no object"; fi
grep -q "no objects" "$tmp/err" || fail "no-object message: $(cat "$tmp/err")"
printf '{"items": [\n  {"metadata": }\n' >"$tmp/broken.json"
if "$bin" health nodes "$tmp/broken.json" 2>"$tmp/err"; then fail "accepted broken JSON"; fi
grep -q "broken.json:2:" "$tmp/err" || fail "JSON error position: $(cat "$tmp/err")"

# XID catalog, from another directory.
(cd "$tmp" && "$bin" health xid 79) | grep -c "GPU_HAS_FALLEN_OFF_THE_BUS" >/dev/null || fail "xid 79"
if "$bin" health xid 9999 2>"$tmp/err"; then fail "unknown XID accepted"; fi
grep -q "not in the catalog" "$tmp/err" || fail "unknown XID message"
echo "telemetry_cli: ok"
