#!/usr/bin/env bash
# Elastic training under tidal lending (docs/tidal.md, "Elastic training"):
# examples/tidal/elastic.yaml against the same borrowers at a fixed size (the file with
# `elastic: false`), seeds 1-2: the elastic run shrinks borrowers instead of evicting them and
# loses less work, serving keeps its SLO in both; the shrinks are reported only where a scenario
# has elastic jobs; `twin compare` shows their rows.
set -euo pipefail
bin=${1:?usage: twin_tidal_elastic.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
scenario=examples/tidal/elastic.yaml

sed 's/^    elastic: true   # elastic/    elastic: false  # elastic/' "$scenario" >"$tmp/fixed.yaml"
grep -q '^    elastic: false  # elastic' "$tmp/fixed.yaml"
for seed in 1 2; do
  "$bin" twin run "$scenario" --seed "$seed" --json >"$tmp/elastic.json"
  "$bin" twin run "$tmp/fixed.yaml" --seed "$seed" --json >"$tmp/fixed.json"
  python3 - "$tmp/elastic.json" "$tmp/fixed.json" "$seed" <<'PY'
import json, sys
e, f = (json.load(open(p)) for p in sys.argv[1:3])
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
