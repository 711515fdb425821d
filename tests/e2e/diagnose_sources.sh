#!/usr/bin/env bash
# End-to-end: `steward diagnose` gives the same answer from the twin, from the offline bundle of
# the same run, and from a real Prometheus holding that bundle.
#
#   1. diagnose --twin examples/diagnose/small.yaml --write-bundle B      (twin.json)
#   2. diagnose --bundle B --write-openmetrics run.om                     (bundle.json)
#   3. promtool tsdb create-blocks-from openmetrics run.om DATA; prometheus on DATA (loopback,
#      free port); diagnose --prometheus URL --start/--end of the bundle  (prometheus.json)
#   4. the three agree: the same causes and teams, GPU-hours equal to the printed 0.01.
#
# Why exact: all three sample the same instants (every 5 minutes of the run). The bundle holds
# the exporter's printed values, which parse back to the same doubles; Prometheus returns at
# each step the sample stamped with that very step (last_over_time over a 1-minute lookback,
# below the 5-minute step, so no sample is read at two steps). Only the JSON's rounding to
# 0.01 GPU-h (and 1e-4 for rates) can differ, by one unit, when float sums land on a boundary.
#
# Fails (never skips) when prometheus/promtool are missing: CI installs them
# (scripts/install-deps.sh). Everything it starts is stopped on exit.
set -euo pipefail
bin=$(realpath "${1:?usage: diagnose_sources.sh STEWARD}")
. "$(dirname "$0")/lib/harness.sh"
prom=$(command -v prometheus || true)
[ -n "$prom" ] || prom=/usr/bin/prometheus
. "$(dirname "$0")/lib/prometheus.sh"
promtool=$(command -v promtool || true)
[ -n "$promtool" ] || promtool=/usr/bin/promtool
[ -x "$prom" ] && [ -x "$promtool" ] ||
  fail "prometheus/promtool not installed (scripts/install-deps.sh installs Debian's package)"

scenario=examples/diagnose/small.yaml
# 1. The twin, diagnosed directly, writing its bundle.
"$bin" diagnose --twin "$scenario" --step 5m --json --write-bundle "$tmp/bundle" >"$tmp/twin.json" ||
  fail "diagnose --twin"
[ "$(ls "$tmp/bundle/scrapes" | wc -l)" = 288 ] || fail "bundle: expected 288 scrapes"
# 2. The bundle, writing the OpenMetrics backfill.
"$bin" diagnose --bundle "$tmp/bundle" --json --write-openmetrics "$tmp/run.om" >"$tmp/bundle.json" ||
  fail "diagnose --bundle"
# 3. A real Prometheus holding the bundle.
"$promtool" tsdb create-blocks-from openmetrics "$tmp/run.om" "$tmp/data" >"$tmp/promtool.log" 2>&1 ||
  fail "promtool: $(tail -n 5 "$tmp/promtool.log")"
printf 'global:\n  scrape_interval: 1m\n' >"$tmp/prometheus.yml"
start_prometheus "$tmp/prometheus.yml" "$tmp/data" "$tmp/prometheus.log" \
  --storage.tsdb.retention.time=100y
read -r first last < <(python3 -c "
import json; m = json.load(open('$tmp/bundle/bundle.json')); print(m['first_ms'] // 1000, m['last_ms'] // 1000)")
"$bin" diagnose --prometheus "$prom_url" --start "$first" --end "$last" --step 5m --json \
  >"$tmp/prometheus.json" || fail "diagnose --prometheus"

# 4. One answer.
python3 - "$tmp" <<'PY' || fail "the three sources disagree"
import json, os, sys
d = sys.argv[1]
twin, bundle, prom = (json.load(open(os.path.join(d, f + ".json")))
                      for f in ("twin", "bundle", "prometheus"))
causes = set(twin["waste_gpu_hours_by_cause"])
for c in ("zombie", "over_request", "dataloader_stall", "queueing", "fragmentation",
          "low_efficiency", "startup"):
    assert c in causes, (c, sorted(causes))
assert any(r["gpu_hours_freed"] > 0 for r in twin["right_sizing"]), twin["right_sizing"]
for name, other in (("bundle", bundle), ("prometheus", prom)):
    assert other["source"]["frames"] == twin["source"]["frames"] == 288, name
    assert other["source"]["gpus"] == twin["source"]["gpus"] == 32, name
    assert set(other["waste_gpu_hours_by_cause"]) == causes, (name, other["waste_gpu_hours_by_cause"])
    for c in causes:
        a, b = twin["waste_gpu_hours_by_cause"][c], other["waste_gpu_hours_by_cause"][c]
        assert abs(a - b) <= 0.0100001, (name, c, a, b)
    for k in ("capacity_gpu_hours", "allocated_gpu_hours", "sm_active_gpu_hours", "busy_gpu_hours"):
        assert abs(twin[k] - other[k]) <= 0.0100001, (name, k, twin[k], other[k])
    for k in ("allocation_rate", "sm_active_utilization", "busy_utilization"):
        assert abs(twin[k] - other[k]) <= 0.000100001, (name, k, twin[k], other[k])
    assert [t["name"] for t in other["top_teams"]] == [t["name"] for t in twin["top_teams"]], name
    assert [r["cause"] for r in other["recommendations"]] == [r["cause"] for r in twin["recommendations"]], name
    # Right-sizing reads the same frames: the same classes, requests and GPU-hours freed.
    key = lambda r: (r["class"], r["requested_gpus_per_pod"], r["recommended_gpus_per_pod"],
                     r["mig_profile"])
    assert [key(r) for r in other["right_sizing"]] == [key(r) for r in twin["right_sizing"]], name
    for a, b in zip(twin["right_sizing"], other["right_sizing"]):
        for k in ("pod_hours", "gpu_hours_freed", "gpu_hours_freed_by_sharing"):
            assert abs(a[k] - b[k]) <= 0.0100001, (name, a["class"], k, a[k], b[k])
# Every series the diagnosis reads is in the backfill, but kube_pod_nodeselectors: no pod of
# the scenario requires a product, so the writer emits none and the diagnosis says so.
assert {n["series"] for n in prom["not_computed"]} <= {"kube_pod_nodeselectors"}, prom["not_computed"]
print("one answer from 3 sources: allocation %.4f, SM-active %.4f, waste %s" % (
    twin["allocation_rate"], twin["sm_active_utilization"],
    ", ".join("%s %.2f" % kv for kv in sorted(twin["waste_gpu_hours_by_cause"].items()))))
PY
echo "PASS diagnose_sources"
