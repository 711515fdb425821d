#!/usr/bin/env bash
# End-to-end: an empty answer is an error, not 0 %. `steward diagnose --prometheus` against a
# Prometheus with no scrape targets (so no DCGM or kube-state-metrics series) exits non-zero,
# naming the GPU activity series that matched nothing, every other empty series, the URL and
# the time range, in text and --json mode alike; and prints no report.
#
# Fails (never skips) when prometheus is missing: CI installs it (scripts/install-deps.sh).
# Everything it starts is stopped on exit.
set -euo pipefail
bin=$(realpath "${1:?usage: diagnose_empty_prometheus.sh STEWARD}")
. "$(dirname "$0")/lib/harness.sh"
prom=$(command -v prometheus || true)
[ -n "$prom" ] || prom=/usr/bin/prometheus
. "$(dirname "$0")/lib/prometheus.sh"
[ -x "$prom" ] || fail "prometheus not installed (scripts/install-deps.sh installs Debian's package)"

printf 'global:\n  scrape_interval: 1m\n' >"$tmp/prometheus.yml"  # No scrape_configs.
start_prometheus "$tmp/prometheus.yml" "$tmp/data" "$tmp/prometheus.log"

start=2024-05-01T00:00:00Z end=2024-05-01T06:00:00Z
for mode in text json; do
  flags=()
  [ "$mode" = json ] && flags=(--json)
  if "$bin" diagnose --prometheus "$prom_url" --start "$start" --end "$end" ${flags[@]+"${flags[@]}"} \
    >"$tmp/out" 2>"$tmp/err"; then
    fail "$mode: diagnose of an empty Prometheus succeeded: $(head -n 5 "$tmp/out")"
  fi
  [ ! -s "$tmp/out" ] || fail "$mode: a report was printed: $(head -n 5 "$tmp/out")"
  for want in DCGM_FI_PROF_SM_ACTIVE DCGM_FI_PROF_GR_ENGINE_ACTIVE DCGM_FI_DEV_GPU_UTIL \
    'kube_pod_container_resource_requests{resource="nvidia_com_gpu"}' "$prom_url" "$start" "$end"; do
    grep -qF -- "$want" "$tmp/err" || fail "$mode: the error does not name $want: $(cat "$tmp/err")"
  done
done
echo "error: $(cat "$tmp/err")"
echo "PASS diagnose_empty_prometheus"
