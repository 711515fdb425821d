#!/usr/bin/env bash
# Two twin binaries on the same rows, alternately, in one run (issue 22 item 2: events per
# second against an older build). CPU time (user + sys, /usr/bin/time) rather than wall time, so
# work on the machine's other core does not skew the ratio; each binary's best of ROUNDS.
#   bench/throughput.sh BASE_STEWARD NEW_STEWARD [ROUNDS=3]
# Rows: the default (10,240 GPUs) for 30 days and examples/scale-100k.yaml (102,400 GPUs) for 7.
# events/s = the report's event count / CPU seconds; both binaries must run the same scenario
# (an older binary may count events differently: the last column compares CPU seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/throughput.sh BASE_STEWARD NEW_STEWARD [ROUNDS]" >&2; exit 2; }
base=$1 new=$2 rounds=${3:-3}
[ -x /usr/bin/time ] || { echo "bench/throughput.sh needs /usr/bin/time (Debian package time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prints "cpu_seconds events" of one run.
run() {
  local bin=$1 scenario=$2 days=$3
  local args=(twin run --days "$days" --json)
  [ "$scenario" = default ] || args=(twin run "$scenario" --days "$days" --json)
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$bin" "${args[@]}" >"$tmp/report.json"
  local user sys events
  read -r user sys <"$tmp/time"
  events=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' \
    "$tmp/report.json")
  awk -v u="$user" -v s="$sys" -v e="$events" 'BEGIN { printf "%.2f %d\n", u + s, e }'
}

printf '%-26s %5s %10s %10s %11s %11s %11s %11s\n' scenario days base_cpu_s new_cpu_s \
  base_events new_events base_ev/s new_ev/s
printf '%-26s %5s %10s %10s %11s %11s %11s %11s   %s\n' "" "" "" "" "" "" "" "" \
  "new/base: events/s, CPU time"
for row in "default 30" "examples/scale-100k.yaml 7"; do
  read -r scenario days <<<"$row"
  best_base="" best_new=""
  for ((i = 0; i < rounds; ++i)); do
    for who in base new; do
      bin=$base
      [ "$who" = new ] && bin=$new
      read -r cpu events < <(run "$bin" "$scenario" "$days")
      if [ "$who" = base ]; then
        base_events=$events
        [ -z "$best_base" ] || awk -v a="$cpu" -v b="$best_base" 'BEGIN{exit !(a < b)}' && best_base=$cpu
      else
        new_events=$events
        [ -z "$best_new" ] || awk -v a="$cpu" -v b="$best_new" 'BEGIN{exit !(a < b)}' && best_new=$cpu
      fi
    done
  done
  awk -v s="$scenario" -v d="$days" -v bc="$best_base" -v nc="$best_new" -v be="$base_events" \
    -v ne="$new_events" 'BEGIN {
      bes = be / bc; nes = ne / nc
      printf "%-26s %5s %10.2f %10.2f %11d %11d %11.0f %11.0f   %.2fx %.2fx\n", s, d, bc, nc, be, ne,
        bes, nes, nes / bes, bc / nc }'
done
