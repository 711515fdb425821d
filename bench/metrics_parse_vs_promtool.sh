#!/usr/bin/env bash
# Times `steward metrics parse` against `promtool check metrics` on the same scrape: the twin's
# dcgm-exporter series for the built-in 10,240-GPU cluster (`steward serve`'s /metrics/dcgm),
# or FILE. Prints each tool's median of RUNS wall times and the ratio (issue 16 asks >= 10x).
#   bench/metrics_parse_vs_promtool.sh [build/steward] [RUNS] [FILE]
set -euo pipefail
bin=${1:-build/steward}
runs=${2:-5}
file=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/e2e/lib/harness.sh"
command -v promtool >/dev/null || fail "promtool not found (Debian package prometheus)"
if [ -z "$file" ]; then
  "$bin" serve --port 0 >"$tmp/serve.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    url=$(sed -n 's|.*serving scenario .* at \(http://[^ ]*\)/ .*|\1|p' "$tmp/serve.log")
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || fail "serve printed no address"
  file="$tmp/dcgm.prom"
  curl -sf "$url/metrics/dcgm" >"$file" || fail "no /metrics/dcgm"
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() {  # COMMAND...: seconds, wall clock.
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
steward_times=() promtool_times=()
for _ in $(seq 1 "$runs"); do
  steward_times+=("$(time_of "$bin" metrics parse "$file")")
  promtool_times+=("$(time_of sh -c "promtool check metrics < '$file'")")
done
s=$(printf '%s\n' "${steward_times[@]}" | median)
p=$(printf '%s\n' "${promtool_times[@]}" | median)
printf 'scrape: %s (%s lines, %s bytes)\n' "$file" "$(wc -l <"$file")" "$(wc -c <"$file")"
printf 'steward metrics parse   median %.3f s of %d runs\n' "$s" "$runs"
printf 'promtool check metrics  median %.3f s of %d runs\n' "$p" "$runs"
printf 'ratio (promtool / steward): %.1fx\n' "$(echo "$p / $s" | bc -l)"
