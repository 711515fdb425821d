#!/usr/bin/env bash
# Elastic training under tidal lending (docs/tidal.md, "Elastic training"):
# examples/tidal/elastic.yaml against the same borrowers at a fixed size (the file with
# `elastic: false`), seeds 1-2: the elastic run shrinks borrowers instead of evicting them and
# loses less work, serving keeps its SLO in both; with tidal.grow_back the shrunk jobs grow back
# and training gets more GPU-hours than at a fixed size; the shrinks are reported only where a
# scenario has elastic jobs; `twin compare` shows their rows.
set -euo pipefail
bin=${1:?usage: twin_tidal_elastic.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
scenario=examples/tidal/elastic.yaml

sed 's/^    elastic: true   # elastic/    elastic: false  # elastic/' "$scenario" >"$tmp/fixed.yaml"
grep -q '^    elastic: false  # elastic' "$tmp/fixed.yaml"
sed 's/^  period_minutes: 1$/  period_minutes: 1\n  grow_back: true/' "$scenario" >"$tmp/grow.yaml"
grep -q '^  grow_back: true' "$tmp/grow.yaml"
for seed in 1 2; do
  "$bin" twin run "$scenario" --seed "$seed" --json >"$tmp/elastic.json"
  "$bin" twin run "$tmp/fixed.yaml" --seed "$seed" --json >"$tmp/fixed.json"
  "$bin" twin run "$tmp/grow.yaml" --seed "$seed" --json >"$tmp/grow.json"
  python3 - "$tmp/elastic.json" "$tmp/fixed.json" "$seed" "$tmp/grow.json" <<'PY'
import json, sys
e, f = (json.load(open(p)) for p in sys.argv[1:3])
g = json.load(open(sys.argv[4]))
assert e["tidal"]["regrows"] == 0 and g["tidal"]["regrows"] > 0, (e["tidal"], g["tidal"])
assert g["tidal"]["training_gpu_hours"] > f["tidal"]["training_gpu_hours"], (g["tidal"], f["tidal"])
assert g["faults"]["lost_gpu_hours_by_cause"]["regrow"] > 0
te, tf = e["tidal"], f["tidal"]
assert te["reclaims"] > 0 and te["reclaim_shrinks"] > 0 and te["gpus_shrunk"] > 0, te
assert "reclaim_shrinks" not in tf, tf  # no elastic jobs: no shrink keys
assert tf["reclaim_evictions"] > te["reclaim_evictions"], (tf["reclaim_evictions"], te["reclaim_evictions"])
assert e["lost_gpu_hours"] < f["lost_gpu_hours"], (e["lost_gpu_hours"], f["lost_gpu_hours"])
assert te["slo_minutes_violated"] == 0 and tf["slo_minutes_violated"] == 0, (te, tf)
print("seed %s: elastic %d shrinks (%d GPUs), %d evictions, %.2f GPU-h lost; fixed %d evictions, "
      "%.2f GPU-h lost" % (sys.argv[3], te["reclaim_shrinks"], te["gpus_shrunk"],
                           te["reclaim_evictions"], e["lost_gpu_hours"], tf["reclaim_evictions"],
                           f["lost_gpu_hours"]))
PY
done
"$bin" twin compare "$tmp/fixed.yaml" --vs-scenario "$scenario" --json >"$tmp/c.json"
python3 - "$tmp/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["delta"]["tidal"]
assert d["reclaim_shrinks"] > 0 and d["reclaim_evictions"] < 0, d
PY
"$bin" twin run "$scenario" | grep -q "elastic borrowers"
echo "twin_tidal_elastic: ok"
