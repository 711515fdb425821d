#!/usr/bin/env bash
# The elastic-training figures of docs/tidal.md: examples/tidal/elastic.yaml (elastic borrowers)
# against the same borrowers at a fixed size (the file with `elastic: false`), seeds 1-4, as a
# Markdown table. Usage: scripts/tidal-elastic-figures.sh [STEWARD] (default build/steward),
# from the repository root.
set -euo pipefail
bin=${1:-build/steward}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sed 's/^    elastic: true   # elastic/    elastic: false  # elastic/' examples/tidal/elastic.yaml \
  >"$tmp/fixed.yaml"
for seed in 1 2 3 4; do
  "$bin" twin run examples/tidal/elastic.yaml --seed $seed --json >"$tmp/e$seed.json"
  "$bin" twin run "$tmp/fixed.yaml" --seed $seed --json >"$tmp/f$seed.json"
done
python3 - "$tmp" <<'PY'
import json, sys, os
d = sys.argv[1]
print("| seed | borrowers | reclaims | shrinks (GPUs) | evictions | lost GPU-h | training GPU-h (gained) | training JCT p50 / p95 (h) | training wait p95 (h) | SLO min |")
print("|---|---|---|---|---|---|---|---|---|---|")
for seed in (1, 2, 3, 4):
    for tag, name in (("f", "fixed"), ("e", "elastic")):
        j = json.load(open(os.path.join(d, f"{tag}{seed}.json")))
        t = j["tidal"]; jct = j["training_jct_seconds"]
        w = j["queue_wait_seconds"]["training"]["p95"] / 3600
        shrinks = f"{t['reclaim_shrinks']} ({t['gpus_shrunk']})" if "reclaim_shrinks" in t else "-"
        print(f"| {seed} | {name} | {t['reclaims']} | {shrinks} | {t['reclaim_evictions']} | "
              f"{j['lost_gpu_hours']:.1f} | {t['training_gpu_hours']:.0f} ({t['training_gpu_hours_gained']:.0f}) | "
              f"{jct['p50']/3600:.1f} / {jct['p95']/3600:.1f} | {w:.1f} | {t['slo_minutes_violated']:.1f} |")
PY
