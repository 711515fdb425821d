#!/usr/bin/env bash
# The figures of docs/tidal.md: examples/tidal/scenario.yaml against its static split (the same
# file with tidal.enabled false), seeds 1-4, as a Markdown table. Usage: scripts/tidal-figures.sh
# [STEWARD] (default build/steward), from the repository root. TIDAL_SCENARIO picks another
# scenario (examples/tidal/lending-limit.yaml: the lendingLimit form).
set -euo pipefail
bin=${1:-build/steward}
scenario=${TIDAL_SCENARIO:-examples/tidal/scenario.yaml}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp "$(dirname "$scenario")"/*.yaml "$tmp/"  # The static copy's relative paths (policy files).
sed 's/^  enabled: true   # tidal/  enabled: false  # tidal/' "$scenario" >"$tmp/static.yaml"
for seed in 1 2 3 4; do
  "$bin" twin run "$scenario" --seed $seed --json >"$tmp/t$seed.json"
  "$bin" twin run "$tmp/static.yaml" --seed $seed --json >"$tmp/s$seed.json"
done
python3 - "$tmp" <<'PY'
import json, sys, os
d = sys.argv[1]
print("| seed | run | allocation | SM-active | training GPU-h (gained) | training JCT p50 / p95 (h) | training wait p95 (h) | GPU-h lent | reclaims (evictions) | lost GPU-h | SLO min | p99 chat / embed (ms) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for seed in (1, 2, 3, 4):
    for tag, name in (("s", "static"), ("t", "tidal")):
        j = json.load(open(os.path.join(d, f"{tag}{seed}.json")))
        t = j["tidal"]; jct = j["training_jct_seconds"]
        p99 = list(t["p99_latency_ms_by_service"].values())
        w = j["queue_wait_seconds"]["training"]["p95"] / 3600
        print(f"| {seed} | {name} | {100*j['allocation_rate']:.1f} % | {100*j['sm_active_utilization']:.1f} % | "
              f"{t['training_gpu_hours']:.0f} ({t['training_gpu_hours_gained']:.0f}) | "
              f"{jct['p50']/3600:.1f} / {jct['p95']/3600:.1f} | {w:.1f} | {t['gpu_hours_lent']:.0f} | "
              f"{t['reclaims']} ({t['reclaim_evictions']}) | {j['lost_gpu_hours']:.1f} | {t['slo_minutes_violated']:.1f} | "
              f"{p99[0]:.0f} / {p99[1]:.0f} |")
PY
