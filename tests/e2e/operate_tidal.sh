#!/usr/bin/env bash
# End-to-end: tidal lending on a live cluster. `steward operate --tidal` against the twin's
# Kubernetes API (`serve --kube-port`), with Debian's Prometheus scraping a request counter
# (http_requests_total, served by a small exporter whose rate the test sets) and holding a
# day of its history (backfilled with promtool, so the forecast primes from it at start):
#   - dry run: the controller reads the rate through the PromQL of the configuration, primes
#     its forecast from the day, and plans the lend (serving's ClusterQueue 32 -> 16 GPUs,
#     training's 16 -> 32) without writing (kubectl still shows 32/16);
#   - --apply: the quotas move, and the twin admits the training jobs that waited for quota;
#   - demand rises past the forecast: a new operate (restarted: the stated static split tells
#     it 16 GPUs are lent) takes 8 back, the borrower's quota first, and evicts the one
#     training job beyond it with the save as grace;
#   - the query answering no series: operate holds (no quota patch, a TidalHold Event) instead
#     of acting on a number it does not have;
#   - a running operate lends again at the trough; Prometheus stopped under it: it holds.
set -euo pipefail
bin=${1:?usage: operate_tidal.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
source "$root/tests/e2e/lib/prometheus.sh"
py=/usr/bin/python3
prom=${prom:-$(command -v prometheus || echo /usr/bin/prometheus)}
promtool=${promtool:-$(command -v promtool || echo /usr/bin/promtool)}

cat >"$tmp/cluster.yaml" <<'YAML'
name: tidal-live
seed: 3
horizon_days: 2
cluster:
  gpu_models:
    - {name: H100, product_label: NVIDIA-H100-80GB-HBM3, memory_mib: 81559}
  pools:
    - {name: h100, nodes: 8, gpus_per_node: 8, gpu_model: H100}
teams:
  - {name: serving, quota_gpus: 32}
  - {name: training, quota_gpus: 16}
faults: {enabled: false}
remediation: {enabled: false}
policies: {admission: fifo-quota, placement: binpack, startup_seconds: 90}
generators:
  - name: chat
    team: serving
    kind: inference
    arrival: {process: once, count: 1}
    gpus_per_pod: 2
    min_replicas: 2
    max_replicas: 2
    usage: {busy: 0.6, sm_active: 0.3}
  # Four whole-node, checkpointing jobs: two fit training's quota, two wait for lent GPUs.
  - name: train
    team: training
    kind: training
    arrival: {process: once, count: 4}
    gpus_per_pod: 8
    duration_hours: {dist: constant, value: 40}
    checkpoint_interval_minutes: 10
    restore_minutes: 5
    usage: {busy: 0.9, sm_active: 0.6}
YAML
start_kube_twin "$tmp/cluster.yaml" --speed 60

# --- The request counter: a day of history (promtool), then a live exporter ------------------
now=$(date +%s)
"$py" - "$now" "$tmp/history.om" <<'PY'
import sys
now, out = int(sys.argv[1]), sys.argv[2]
# 30 requests per second all day, scraped every 5 s (a [10s] rate needs two samples), from
# 26 h to 3 min ago.
start, end, v = now - 26 * 3600, now - 180, 0.0
with open(out, "w") as f:
    f.write("# TYPE http_requests counter\n")
    for t in range(start, end + 1, 5):
        f.write(f'http_requests_total{{namespace="serving",service="chat"}} {v} {t}\n')
        v += 30 * 5
    f.write("# EOF\n")
PY
"$promtool" tsdb create-blocks-from openmetrics "$tmp/history.om" "$tmp/data" \
  >"$tmp/promtool.log" 2>&1 || fail "promtool backfill: $(cat "$tmp/promtool.log")"
last=$(tail -2 "$tmp/history.om" | head -1 | awk '{print $2 " " $3}')
echo 30 >"$tmp/rate"
cat >"$tmp/exporter.py" <<'PY'
import http.server, sys, time
value, at = float(sys.argv[1]), float(sys.argv[2])
rate_file = sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global value, at
        now = time.time()
        value += float(open(rate_file).read()) * (now - at)  # The counter keeps counting.
        at = now
        body = (f'# TYPE http_requests_total counter\n'
                f'http_requests_total{{namespace="serving",service="chat"}} {value}\n').encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
# shellcheck disable=SC2086
"$py" "$tmp/exporter.py" $last "$tmp/rate" >"$tmp/exporter.port" 2>"$tmp/exporter.log" &
pids+=($!)
wait_until 10 "the exporter listens" test -s "$tmp/exporter.port"
cat >"$tmp/prometheus.yml" <<EOF
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: serving
    static_configs: [{targets: ["127.0.0.1:$(cat "$tmp/exporter.port")"]}]
EOF
start_prometheus "$tmp/prometheus.yml" "$tmp/data" "$tmp/prometheus.log"
# A short rate window (a real one is [1m] or more) so the test's demand changes show in seconds.
query='sum(rate(http_requests_total{namespace="serving",service="chat"}[10s]))'
rate_now() {
  curl -sf "$prom_url/api/v1/query" --data-urlencode "query=$query" |
    "$py" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
rate_near() {  # rate_near RPS: within 20 %.
  local v
  v=$(rate_now)
  [ -n "$v" ] && "$py" -c "import sys; sys.exit(abs(float('$v') - $1) > $1 * 0.2)"
}
rate_above() {
  local v
  v=$(rate_now)
  [ -n "$v" ] && "$py" -c "import sys; sys.exit(not float('$v') > $1)"
}
wait_until 60 "Prometheus reads about 30 requests per second" rate_near 30

cat >"$tmp/tidal.yaml" <<EOF
tidal:
  lend_from: serving
  lend_to: training
  reserve: hpa-step
  forecast: {days: 1, bucket_minutes: 15}
  lead_time: {save_seconds: 120, restart_seconds: 90}
  period_minutes: 1
static_split: {lend_from_gpus: 32, lend_to_gpus: 16}
services:
  - name: serving/chat
    query: '$query'
    capacity_per_replica: 20
    gpus_per_replica: 2
    min_replicas: 2
    max_replicas: 12
    autoscaler: {target_utilization: 0.5}
EOF
nominal() {
  k get clusterqueue "$1" \
    -o jsonpath='{.spec.resourceGroups[0].flavors[0].resources[?(@.name=="nvidia.com/gpu")].nominalQuota}'
}
operate() {
  "$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --tidal "$tmp/tidal.yaml" \
    --once --no-stack-health --no-idle-reclaim --alert-tenant-share 0 "$@"
}
training_running() { rows get pods -n training --field-selector status.phase=Running; }
two_training() { [ "$(training_running)" = 2 ]; }
wait_until 60 "training runs its quota's two jobs" two_training

# --- Dry run: the forecast primed from the day, a lend planned, nothing written ---------------
# 30 rps at 10 per replica on target = 3 replicas, + one HPA step (4) = 7 x 2 GPUs = 14 kept:
# 16 of serving's 32 GPUs lent (two whole nodes).
operate --audit "$tmp/dry.db" >"$tmp/dry.out" 2>"$tmp/dry.err" ||
  fail "operate --tidal dry run: $(cat "$tmp/dry.err")"
grep -q "tidal: primed the forecasts with [1-9][0-9]* past readings" "$tmp/dry.err" ||
  fail "no priming: $(cat "$tmp/dry.err")"
grep -q "planned tidal-lend clusterqueue/serving: .*32.* -> .*16" "$tmp/dry.out" ||
  fail "no planned lend from serving: $(cat "$tmp/dry.out" "$tmp/dry.err")"
grep -q "planned tidal-lend clusterqueue/training: .*16.* -> .*32" "$tmp/dry.out" ||
  fail "no planned lend to training: $(cat "$tmp/dry.out")"
# (A live rate a little above 30 asks for 4 replicas: 16 kept, 16 lent all the same.)
grep -q "tidal: 1 step(s), 0 hold(s); 16 GPUs of serving lent to training (serving needs 1[46] GPUs)" \
  "$tmp/dry.err" || fail "summary: $(cat "$tmp/dry.err")"
[ "$(nominal serving)/$(nominal training)" = 32/16 ] || fail "the dry run patched a quota"

# --- Apply: the quotas move; training's waiting jobs are admitted -----------------------------
operate --apply --audit "$tmp/audit.db" >"$tmp/apply1.out" 2>"$tmp/apply1.err" ||
  fail "operate --tidal --apply: $(cat "$tmp/apply1.err")"
[ "$(nominal serving)/$(nominal training)" = 16/32 ] ||
  fail "quotas after the lend: $(nominal serving)/$(nominal training); $(cat "$tmp/apply1.out")"
four_training() { [ "$(training_running)" = 4 ]; }
wait_until 60 "training runs four jobs on the lent GPUs" four_training

# --- Demand rises past the forecast: a restarted operate takes 8 GPUs back --------------------
# 200 rps asks for 20 replicas, capped at 12 (24 GPUs): 8 may stay lent. Past 60 rps the
# count (6) plus its HPA step already reaches the cap, so the rate need not have settled.
echo 200 >"$tmp/rate"
wait_until 60 "Prometheus reads more than 60 requests per second" rate_above 60
operate --apply --audit "$tmp/audit.db" >"$tmp/apply2.out" 2>"$tmp/apply2.err" ||
  fail "operate --tidal --apply (reclaim): $(cat "$tmp/apply2.err")"
[ "$(nominal serving)/$(nominal training)" = 24/24 ] ||
  fail "quotas after the reclaim: $(nominal serving)/$(nominal training); $(cat "$tmp/apply2.out")"
# The borrower gave its quota up first, then serving got it back.
grep "applied tidal-reclaim clusterqueue/" "$tmp/apply2.out" | head -1 |
  grep -q "clusterqueue/training" ||
  fail "serving's quota came back before training's went: $(cat "$tmp/apply2.out")"
# One whole-node job beyond training's 24 GPUs, evicted with the save (120 s) as grace.
[ "$(grep -c "applied tidal-reclaim pod/training/.*: running -> evicted (grace 120s)" \
  "$tmp/apply2.out")" = 1 ] || fail "expected one training job evicted: $(cat "$tmp/apply2.out")"

# --- No series (a label the counter does not have): hold, never act on missing data ---------
echo 30 >"$tmp/rate"  # What would lend again, if it could be read.
wait_until 60 "Prometheus reads about 30 requests per second again" rate_near 30
sed 's/service="chat"/service="chatt"/; s/^services:/prime_from_history: false\nservices:/' \
  "$tmp/tidal.yaml" >"$tmp/typo.yaml"
"$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --tidal "$tmp/typo.yaml" --once \
  --no-stack-health --no-idle-reclaim --alert-tenant-share 0 --apply --audit "$tmp/audit.db" \
  >"$tmp/typo.out" 2>"$tmp/typo.err" || fail "operate with an empty query: $(cat "$tmp/typo.err")"
grep -q 'tidal holds: service serving/chat: query .*service="chatt".*: no series' "$tmp/typo.err" ||
  fail "no hold on an empty vector: $(cat "$tmp/typo.err")"
grep -q "tidal: 0 steps, 1 hold(s); nothing lent or taken back" "$tmp/typo.err" ||
  fail "summary: $(cat "$tmp/typo.err")"
grep -q "applied event clusterqueue/serving: Warning TidalHold" "$tmp/typo.out" ||
  fail "no TidalHold event: $(cat "$tmp/typo.out")"
if grep -q "quota" "$tmp/typo.out"; then fail "patched a quota while holding: $(cat "$tmp/typo.out")"; fi
[ "$(nominal serving)/$(nominal training)" = 24/24 ] || fail "quotas changed while holding"

# --- A running operate: demand back at its trough lends again; Prometheus down: it holds -----
# Every pass each second, a tidal period of 15 s. After its first step (the forecasts primed,
# 16 GPUs lent again at 30 rps), Prometheus stops: the next period holds instead of acting.
sed 's/period_minutes: 1/period_minutes: 0.25/' "$tmp/tidal.yaml" >"$tmp/running.yaml"
# A running operate with $tmp/NAME.yaml, a pass each second, writing; output in NAME.out/.err.
start_operate() {
  "$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --tidal "$tmp/$1.yaml" \
    --interval 1 --no-stack-health --no-idle-reclaim --alert-tenant-share 0 --apply \
    --audit "$tmp/audit.db" >"$tmp/$1.out" 2>"$tmp/$1.err" &
  operate_pid=$!
  pids+=($operate_pid)
}
stop_operate() {
  kill -TERM "$operate_pid"
  wait "$operate_pid" 2>/dev/null || true
}
start_operate running
# (The forecast counts only days before today: the minutes at 200 rps do not raise it, unless
# they fell in the last quarter hour before 00:00 UTC and this step in the first after it.)
lent_again() { [ "$(nominal serving)/$(nominal training)" = 16/32 ]; }
wait_until 60 "the running operate lends 16 GPUs again" lent_again
prom_pid=${pids[-2]}  # Started before operate.
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null || true
held() { grep -q "tidal holds: service serving/chat: query .*${prom_url#http://}" "$tmp/running.err"; }
wait_until 60 "the next tidal period holds" held
grep -q "applied event clusterqueue/serving: Warning TidalHold" "$tmp/running.out" ||
  fail "no TidalHold event: $(cat "$tmp/running.out")"
sleep 2  # More passes while Prometheus is down: still nothing written.
stop_operate
[ "$(nominal serving)/$(nominal training)" = 16/32 ] || fail "quotas changed while holding"
[ "$(grep -c "TidalHold" "$tmp/running.out")" = 1 ] ||
  fail "the hold is announced once: $(cat "$tmp/running.out")"
if sed -n '/TidalHold/,$p' "$tmp/running.out" | grep -q "quota"; then
  fail "patched a quota while holding: $(cat "$tmp/running.out")"
fi

# --- The fail-safe: blind past reclaim_after_hold_minutes, the loan comes back ---------------
# Prometheus is still down. With the fail-safe at 3 s, a new operate (told the static split, so
# it knows 16 GPUs are lent) holds, then moves serving's quota back to 32 and training's to 16.
{ cat "$tmp/running.yaml"; echo "reclaim_after_hold_minutes: 0.05"; } >"$tmp/failsafe.yaml"
start_operate failsafe
returned() { [ "$(nominal serving)/$(nominal training)" = 32/16 ]; }
wait_until 60 "the fail-safe takes the 16 lent GPUs back" returned
stop_operate
grep -q "tidal fail-safe: no demand reading for .* minutes; taking every lent GPU back" \
  "$tmp/failsafe.err" || fail "no fail-safe line: $(cat "$tmp/failsafe.err")"
grep -q "after 0.05 minutes without it every lent GPU is taken back" "$tmp/failsafe.out" ||
  fail "the hold's Event does not announce the fail-safe: $(cat "$tmp/failsafe.out")"
grep -q "tidal: 0 steps, [0-9]* hold(s); nothing lent; the hold's fail-safe took the loan back" \
  "$tmp/failsafe.err" || fail "summary: $(cat "$tmp/failsafe.err")"
echo "operate --tidal planned, lent, took back, lent again, held and failed safe on the twin's API front"
