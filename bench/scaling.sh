#!/usr/bin/env bash
# The twin's scaling table (issue 22): GPUs x simulated days -> wall time, peak RSS, events and
# events per second, each row with its ratios to the first. One process per row, one core each
# (the twin is single-threaded); peak RSS and wall time from /usr/bin/time.
#   bench/scaling.sh [STEWARD=build/steward] [--long]
# Rows: the default (10,240 GPUs) at 7 and 30 days and examples/scale-100k.yaml (102,400 GPUs)
# at 7 days; --long adds 10,240 x 365 and 102,400 x 30 (about 20 s each since issue 22).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/steward
long=0
for a in "$@"; do
  case "$a" in
    --long) long=1 ;;
    *) bin=$a ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench/scaling.sh needs /usr/bin/time (Debian package time)" >&2; exit 2; }
rows=("default 7" "default 30" "examples/scale-100k.yaml 7")
[ "$long" = 1 ] && rows+=("default 365" "examples/scale-100k.yaml 30")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-26s %8s %5s %9s %9s %11s %11s   %s\n' scenario GPUs days wall_s rss_MB events events/s \
  "ratios to row 1: wall, RSS, events/s"
first=""
for row in "${rows[@]}"; do
  read -r scenario days <<<"$row"
  args=(twin run --days "$days" --json)
  [ "$scenario" = default ] || args=(twin run "$scenario" --days "$days" --json)
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" "${args[@]}" >"$tmp/report.json"
  read -r wall rss_kb <"$tmp/time"
  read -r gpus events < <(/usr/bin/python3 -c \
    'import json,sys; j=json.load(open(sys.argv[1])); print(j["total_gpus"], j["events"])' \
    "$tmp/report.json")
  line=$(awk -v w="$wall" -v r="$rss_kb" -v e="$events" 'BEGIN {
    ws = w > 0 ? w : 0.01; printf "%.2f %.0f %.0f", w, r / 1024, e / ws }')
  read -r wall_s rss_mb eps <<<"$line"
  [ -n "$first" ] || first="$wall_s $rss_mb $eps"
  ratios=$(awk -v a="$first" -v w="$wall_s" -v r="$rss_mb" -v e="$eps" 'BEGIN {
    split(a, f, " "); printf "%.1fx %.1fx %.2fx", w / f[1], r / f[2], e / f[3] }')
  printf '%-26s %8s %5s %9s %9s %11s %11s   %s\n' "$scenario" "$gpus" "$days" "$wall_s" \
    "$rss_mb" "$events" "$eps" "$ratios"
done
