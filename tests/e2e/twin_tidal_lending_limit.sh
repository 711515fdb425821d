#!/usr/bin/env bash
# Tidal lending in Kueue's lendingLimit form (docs/tidal.md) on examples/tidal/lending-limit.yaml
# against its static split (tidal.enabled false: serving's lendingLimit stays 0), same seed:
# serving keeps its SLO in both; the tidal run lends whole nodes through the cohort by
# serving's lendingLimit (its nominal quota never moves), serving's ClusterQueue holds only
# what its replicas use (each replica its own charge), and training gains GPU-hours; same seed
# => same JSON; a lendingLimit form without per-replica serving is refused, naming the field.
set -euo pipefail
bin=${1:?usage: twin_tidal_lending_limit.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
scenario=examples/tidal/lending-limit.yaml

cp examples/tidal/lending-limit-queues.yaml "$tmp/"  # The static copy's governance path.
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
assert t["policies"]["admission"] == "kueue", t["policies"]
assert tt["lending"] and not ts["lending"], (tt["lending"], ts["lending"])
assert tt["gpu_hours_lent"] > 0 and tt["reclaims"] > 0, tt
assert tt["max_lent_gpus"] % 8 == 0, tt["max_lent_gpus"]  # whole nodes
# Serving keeps its objective with lending as without.
assert tt["slo_minutes_violated"] == 0 and ts["slo_minutes_violated"] == 0, (tt, ts)
# Training gains GPU-hours over the static split of the same seed, and the cluster is busier.
assert ts["training_gpu_hours_gained"] == 0, ts
assert tt["training_gpu_hours_gained"] > 0, tt
assert tt["training_gpu_hours"] > ts["training_gpu_hours"], (tt, ts)
assert t["allocation_rate"] > s["allocation_rate"]
def quota(report, cq):
    q = next(x for x in report["scheduler"]["cluster_queues"] if x["name"] == cq)
    return next(u for u in q["quotas"] if u["resource"] == "nvidia.com/gpu"), q
for report in (t, s):
    serving, sq = quota(report, "serving")
    training, _ = quota(report, "training")
    # The loan is serving's lendingLimit; the nominal quotas are the static split's.
    assert serving["nominal"] == 96 and training["nominal"] == 32, (serving, training)
    assert sq["cohort"] == "tidal"
    # Per replica: serving holds what its replicas use, well below its nominal at any hour but
    # the peak (the report's end is a Sunday night), and every replica was admitted on its own.
    assert serving["usage"] < serving["nominal"], serving
    assert sq["admitted_workloads_total"] > 100, sq["admitted_workloads_total"]
    assert sq["reserving_workloads"] > 2, sq["reserving_workloads"]
assert quota(s, "serving")[0]["lending_limit"] == 0
assert quota(t, "serving")[0]["lending_limit"] % 8 == 0
print("tidal (lendingLimit): lent %.0f GPU-h, training %.0f -> %.0f GPU-h, %d SLO minutes" %
      (tt["gpu_hours_lent"], ts["training_gpu_hours"], tt["training_gpu_hours"],
       tt["slo_minutes_violated"]))
PY
"$bin" twin compare "$tmp/static.yaml" --vs-scenario "$scenario" --json >"$tmp/c.json"
python3 - "$tmp/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["delta"]
assert d["tidal"]["training_gpu_hours"] > 0 and d["tidal"]["slo_minutes_violated"] == 0, d["tidal"]
PY
# The lendingLimit form needs each replica admitted on its own: refused at load, naming the key.
sed 's/^  serving_admission: per-replica/  serving_admission: peak/' "$scenario" >"$tmp/peak.yaml"
if "$bin" twin run "$tmp/peak.yaml" --json >/dev/null 2>"$tmp/err"; then
  echo "a lendingLimit form with serving admitted at its peak was accepted" >&2; exit 1
fi
grep -q "tidal.lend_by: lending-limit needs policies.serving_admission: per-replica" "$tmp/err" \
  || { cat "$tmp/err" >&2; exit 1; }
echo "twin_tidal_lending_limit: ok"
