#!/usr/bin/env bash
# End-to-end: a real Prometheus scrapes the twin's dcgm-exporter, and Steward reads the series
# back through PromQL; every answer must match the ground truth the twin wrote for the snapshot.
#
#   steward metrics serve --at H  (frozen 10,240-GPU snapshot, loopback, free port)
#   prometheus (Debian's /usr/bin/prometheus, loopback, free port, tmp TSDB, 1 s scrapes)
#   steward metrics query --prometheus URL 'PROMQL' --json
#
# Fails (never skips) when prometheus is missing: CI installs it (scripts/install-deps.sh).
# Everything it starts is stopped on exit.
set -euo pipefail
bin=$(realpath "${1:?usage: prometheus_roundtrip.sh STEWARD}")
at_hours=${ROUNDTRIP_AT_HOURS:-12}
. "$(dirname "$0")/lib/harness.sh"

prom=$(command -v prometheus || true)
[ -n "$prom" ] || prom=/usr/bin/prometheus
. "$(dirname "$0")/lib/prometheus.sh"
[ -x "$prom" ] || fail "prometheus not installed (scripts/install-deps.sh installs Debian's package)"

# 1. The twin, frozen at $at_hours of the built-in 10,240-GPU scenario, on any free port.
"$bin" metrics serve --at "$at_hours" --port 0 --port-file "$tmp/port" --truth "$tmp/truth.json" \
  >"$tmp/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || fail "steward metrics serve did not start"
twin_port=$(cat "$tmp/port")

# 2. Prometheus scraping it every second (flags from ../shared/docs/telemetry-facts.md §4).
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: twin
    static_configs:
      - targets: ['127.0.0.1:$twin_port']
EOF
start_prometheus "$tmp/prometheus.yml" "$tmp/data" "$tmp/prometheus.log" \
  --storage.tsdb.retention.time=1h --web.enable-lifecycle

q() { "$bin" metrics query --prometheus "$prom_url" "$@"; }

# 3. Wait until the target is up and a whole scrape is stored.
gpus=$(python3 -c "import json; print(json.load(open('$tmp/truth.json'))['gpus'])")
ok=""
for _ in $(seq 1 300); do
  if q 'count(DCGM_FI_DEV_GPU_UTIL) and on() (up{job="twin"} == 1)' --json >"$tmp/count.json" 2>/dev/null &&
     python3 -c "
import json, sys
r = json.load(open('$tmp/count.json'))['result']
sys.exit(0 if r and float(r[0]['value'][1]) == $gpus else 1)"; then
    ok=1
    break
  fi
  sleep 0.2
done
[ -n "$ok" ] || fail "target never up with $gpus GPUs: $(cat "$tmp/count.json" 2>/dev/null)"
echo "prometheus $prom_url scraped the twin on :$twin_port: count(DCGM_FI_DEV_GPU_UTIL) = $gpus"

# 4. PromQL views vs ground truth, all evaluated at the timestamp of one complete stored scrape
# (T). A later scrape that times out on a loaded machine writes stale markers, which would empty
# queries at "now"; they carry later timestamps, so answers at T cannot change.
q 'max(timestamp(DCGM_FI_DEV_GPU_UTIL))' --time "$(python3 -c "import json; print(json.load(open('$tmp/count.json'))['result'][0]['value'][0])")" \
  --json >"$tmp/ts.json"
T=$(python3 -c "import json; print(json.load(open('$tmp/ts.json'))['result'][0]['value'][1])")
at=(--time "$T")
q 'avg(DCGM_FI_PROF_SM_ACTIVE)' "${at[@]}" --json >"$tmp/sm.json"
q 'avg(DCGM_FI_DEV_GPU_UTIL)' "${at[@]}" --json >"$tmp/util.json"
q 'sum by (namespace) (DCGM_FI_DEV_GPU_UTIL)' "${at[@]}" --json >"$tmp/ns_util.json"
q 'count by (namespace) (DCGM_FI_DEV_FB_USED)' "${at[@]}" --json >"$tmp/ns_count.json"
q 'sum by (namespace) (DCGM_FI_DEV_FB_USED)' "${at[@]}" --json >"$tmp/ns_fb.json"
q 'sum(DCGM_FI_DEV_POWER_USAGE)' "${at[@]}" --json >"$tmp/power.json"
q 'count(DCGM_FI_DEV_FB_USED > 0 and DCGM_FI_DEV_GPU_UTIL <= 5)' "${at[@]}" --json >"$tmp/zombie.json"
T0=$(python3 -c "print($T - 2)")
q 'avg(DCGM_FI_PROF_SM_ACTIVE)' --start "$T0" --end "$T" --step 1 --json >"$tmp/range.json"
q 'count(DCGM_FI_DEV_GPU_UTIL)' "${at[@]}" >"$tmp/count.txt"
python3 - "$tmp" <<'PY' || fail "PromQL answers differ from the twin's ground truth"
import json, os, sys
d = sys.argv[1]
def load(n): return json.load(open(os.path.join(d, n)))
truth = load("truth.json")
n = truth["gpus"]
def one(n_):
    r = load(n_)
    assert r["resultType"] == "vector" and len(r["result"]) == 1, r
    return float(r["result"][0]["value"][1])
def close(got, want, rel=1e-6):
    assert abs(got - want) <= rel * max(abs(want), 1e-12), (got, want)
sm = one("sm.json")
close(sm, truth["all"]["sm_active_sum"] / n)
close(one("util.json"), truth["all"]["gpu_util_sum"] / n)
close(one("power.json"), truth["all"]["power_sum"])
def by_ns(n_):
    r = load(n_)["result"]
    return {s["metric"].get("namespace", ""): float(s["value"][1]) for s in r}
ns = truth["by_namespace"]
for name, key in (("ns_util.json", "gpu_util_sum"), ("ns_count.json", "gpus"),
                  ("ns_fb.json", "fb_used_sum")):
    got = by_ns(name)
    assert set(got) == set(ns), (name, sorted(got), sorted(ns))
    for k, g in ns.items():
        close(got[k], g[key])
# Zombies: memory held, <= 5% util. Held idle GPUs of notebooks are among them.
assert one("zombie.json") >= truth["idle_held_gpus"], (one("zombie.json"), truth["idle_held_gpus"])
rng = load("range.json")
assert rng["resultType"] == "matrix" and len(rng["result"]) == 1, rng
pts = rng["result"][0]["values"]
assert len(pts) >= 1, pts
for t, v in pts: close(float(v), truth["all"]["sm_active_sum"] / n)
print(f"avg(DCGM_FI_PROF_SM_ACTIVE) = {sm:.9f}; exporter truth {truth['all']['sm_active_sum'] / n:.9f}; "
      f"twin meter {truth['meter_sm_rate']:.9f}; {len(ns)} namespaces match; "
      f"{len(pts)} range points")
PY
grep -qx '{} 10240' "$tmp/count.txt" || [ "$gpus" != 10240 ] || fail "text output: $(cat "$tmp/count.txt")"

# 5. Errors come back as Prometheus reported them, with exit 1.
if q 'sum by (' >"$tmp/bad.out" 2>"$tmp/bad.err"; then fail "bad PromQL accepted"; fi
grep -q "prometheus: bad_data" "$tmp/bad.err" || fail "bad PromQL error: $(cat "$tmp/bad.err")"
echo "PASS prometheus_roundtrip"
