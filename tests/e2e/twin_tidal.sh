#!/usr/bin/env bash
# Tidal lending (docs/tidal.md) on examples/tidal/scenario.yaml against its static split (the
# same file with tidal.enabled false), same seed: serving keeps its SLO in both, the tidal run
# lends whole nodes, takes them back, and training gains GPU-hours; same seed => same JSON;
# `twin compare` shows the tidal rows; a scenario without serving has no tidal section.
set -euo pipefail
bin=${1:?usage: twin_tidal.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
scenario=examples/tidal/scenario.yaml

sed 's/^  enabled: true   # tidal/  enabled: false  # tidal/' "$scenario" >"$tmp/static.yaml"
grep -q '^  enabled: false  # tidal' "$tmp/static.yaml"
"$bin" twin run "$scenario" --json >"$tmp/tidal.json"
"$bin" twin run "$scenario" --json >"$tmp/tidal2.json"
cmp "$tmp/tidal.json" "$tmp/tidal2.json"  # Deterministic.
"$bin" twin run "$tmp/static.yaml" --json >"$tmp/static.json"
python3 - "$tmp/tidal.json" "$tmp/static.json" <<'PY'
import json, sys
t, s = (json.load(open(f)) for f in sys.argv[1:3])
tt, ts = t["tidal"], s["tidal"]
assert tt["lending"] and not ts["lending"], (tt["lending"], ts["lending"])
assert tt["gpu_hours_lent"] > 0 and tt["reclaims"] > 0, tt
assert tt["max_lent_gpus"] % 8 == 0, tt["max_lent_gpus"]  # whole nodes
# Serving keeps its objective with lending as without.
assert tt["slo_minutes_violated"] == 0 and ts["slo_minutes_violated"] == 0, (tt, ts)
for name, p99 in tt["p99_latency_ms_by_service"].items():
    slo = next(x["slo_p99_ms"] for x in tt["services"] if x["name"] == name)
    assert p99 <= slo, (name, p99, slo)
# Training gains GPU-hours over the static split of the same seed, and the cluster is busier.
assert ts["training_gpu_hours_gained"] == 0, ts
assert tt["training_gpu_hours_gained"] > 0, tt
assert tt["training_gpu_hours"] > ts["training_gpu_hours"], (tt, ts)
assert t["allocation_rate"] > s["allocation_rate"]
assert t["training_jct_seconds"]["count"] > 0
print("tidal: lent %.0f GPU-h, training %.0f -> %.0f GPU-h" %
      (tt["gpu_hours_lent"], ts["training_gpu_hours"], tt["training_gpu_hours"]))
PY
"$bin" twin compare "$tmp/static.yaml" --vs-scenario "$scenario" --json >"$tmp/c.json"
python3 - "$tmp/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["delta"]
assert d["tidal"]["training_gpu_hours"] > 0 and d["tidal"]["slo_minutes_violated"] == 0, d["tidal"]
PY
"$bin" twin run "$scenario" | grep -q "Serving and tidal lending"
# Without traffic or tidal: no tidal section.
"$bin" twin run --days 0.1 --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert "tidal" not in j and "training_jct_seconds" not in j'
echo "twin_tidal: ok"
