#!/usr/bin/env bash
# The elastic-training figures of docs/tidal.md: examples/tidal/elastic.yaml (elastic borrowers)
# against the same borrowers at a fixed size (the file with `elastic: false`) and with
# `tidal.grow_back: true`, seeds 1-4, as a Markdown table. Usage: scripts/tidal-elastic-figures.sh [STEWARD] (default build/steward),
# from the repository root.
set -euo pipefail
bin=${1:-build/steward}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sed 's/^    elastic: true   # elastic/    elastic: false  # elastic/' examples/tidal/elastic.yaml \
  >"$tmp/fixed.yaml"
sed 's/^  period_minutes: 1$/  period_minutes: 1\n  grow_back: true/' examples/tidal/elastic.yaml \
  >"$tmp/grow.yaml"
grep -q '^  grow_back: true' "$tmp/grow.yaml"
for seed in 1 2 3 4; do
  "$bin" twin run examples/tidal/elastic.yaml --seed $seed --json >"$tmp/e$seed.json"
  "$bin" twin run "$tmp/fixed.yaml" --seed $seed --json >"$tmp/f$seed.json"
  "$bin" twin run "$tmp/grow.yaml" --seed $seed --json >"$tmp/g$seed.json"
done
python3 - "$tmp" <<'PY'
import json, sys, os
d = sys.argv[1]
print("| seed | borrowers | reclaims | shrinks (GPUs) | evictions | grown back (GPUs) | lost GPU-h: reclaim / regrow | training GPU-h (gained) | training JCT p50 / p95 (h) | training wait p95 (h) | SLO min |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for seed in (1, 2, 3, 4):
    for tag, name in (("f", "fixed"), ("e", "elastic"), ("g", "elastic, grow back")):
        j = json.load(open(os.path.join(d, f"{tag}{seed}.json")))
        t = j["tidal"]; jct = j["training_jct_seconds"]
        w = j["queue_wait_seconds"]["training"]["p95"] / 3600
        shrinks = f"{t['reclaim_shrinks']} ({t['gpus_shrunk']})" if "reclaim_shrinks" in t else "-"
        grown = f"{t['regrows']} ({t['gpus_regrown']})" if "regrows" in t else "-"
        by = j["faults"]["lost_gpu_hours_by_cause"]
        regrow = by.get("regrow", 0.0)
        print(f"| {seed} | {name} | {t['reclaims']} | {shrinks} | {t['reclaim_evictions']} | {grown} | "
              f"{j['lost_gpu_hours'] - regrow:.1f} / {regrow:.1f} | {t['training_gpu_hours']:.0f} ({t['training_gpu_hours_gained']:.0f}) | "
              f"{jct['p50']/3600:.1f} / {jct['p95']/3600:.1f} | {w:.1f} | {t['slo_minutes_violated']:.1f} |")
PY
