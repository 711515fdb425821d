#!/usr/bin/env bash
# Sharing a GPU between serving and training (docs/tidal.md, "Sharing a GPU"):
# examples/tidal/sharing.yaml (MPS) against its variants on the same seed: time-slicing (the
# pool's gpu_sharing), MIG (both generators on 3g.40gb instances) and no sharing (replicas on
# whole GPUs, training on the GPUs serving does not reserve). MIG keeps the service's p99 and
# SLO minutes as without a neighbour; MPS raises the p99 a bounded amount; time-slicing raises
# it most and misses the SLO; training gets more GPU-hours with sharing than without, and
# computes less than it holds beside the replicas under MPS and time-slicing. `twin compare`
# shows the sharing rows; a scenario without gpu_sharing reports none of the new keys.
set -euo pipefail
bin=${1:?usage: twin_tidal_sharing.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
scenario=examples/tidal/sharing.yaml

cp "$scenario" "$tmp/mps.yaml"
sed 's/gpu_sharing: mps }/gpu_sharing: time-slicing }/' "$scenario" >"$tmp/ts.yaml"
sed 's/gpu_milli: 500 # /mig_profile: 3g.40gb # /' "$scenario" >"$tmp/mig.yaml"
sed 's/gpu_milli: 500 # replica share/gpu_milli: 1000 # replica share/;
     s/quota_gpus: 24}   # training quota/quota_gpus: 16}   # training quota/' \
  "$scenario" >"$tmp/none.yaml"
grep -q 'gpu_sharing: time-slicing }' "$tmp/ts.yaml"
[ "$(grep -c 'mig_profile: 3g.40gb #' "$tmp/mig.yaml")" = 2 ]
grep -q 'gpu_milli: 1000 # replica share' "$tmp/none.yaml"
grep -q 'quota_gpus: 16}   # training quota' "$tmp/none.yaml"

for v in none mig mps ts; do
  "$bin" twin run "$tmp/$v.yaml" --seed 1 --json --quiet >"$tmp/$v.json"
done
"$bin" twin run "$tmp/mps.yaml" --seed 1 --json --quiet | cmp - "$tmp/mps.json"  # deterministic

python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
r = {v: json.load(open(f"{tmp}/{v}.json")) for v in ("none", "mig", "mps", "ts")}
svc = {v: r[v]["tidal"]["services"][0] for v in r}
sh = {v: r[v]["tidal"]["gpu_sharing"] for v in r}
p99 = {v: svc[v]["p99_latency_ms"] for v in r}
slo = {v: svc[v]["slo_minutes_violated"] for v in r}
train = {v: r[v]["tidal"]["training_gpu_hours"] for v in r}
# No sharing: no replica has a neighbour.
assert svc["none"]["shared_replica_hours"] == 0, svc["none"]
# MIG: beside training, never slowed; the latency of the run without a neighbour.
assert svc["mig"]["shared_replica_hours"] > 0 and svc["mig"]["slowed_replica_hours"] == 0, svc["mig"]
assert p99["mig"] == p99["none"] and slo["mig"] == slo["none"] == 0, (p99, slo)
assert sh["mig"]["training_effective_gpu_hours_beside_serving"] == \
    sh["mig"]["training_gpu_hours_beside_serving"] > 0, sh["mig"]
# MPS: a bounded rise (the stretch is at most 1.3x), SLO kept; time-slicing: the most, SLO missed.
for v in ("mps", "ts"):
    assert svc[v]["slowed_replica_hours"] > 0, svc[v]
    assert 0 < sh[v]["training_effective_gpu_hours_beside_serving"] < \
        sh[v]["training_gpu_hours_beside_serving"], sh[v]
assert p99["none"] < p99["mps"] < 1.5 * p99["none"], p99
assert slo["mps"] == 0, slo
assert p99["ts"] > p99["mps"] and slo["ts"] > 0, (p99, slo)
assert sh["ts"]["training_effective_gpu_hours_beside_serving"] < \
    sh["mps"]["training_effective_gpu_hours_beside_serving"], sh
# Training gains GPU-hours from the other halves of serving's GPUs.
for v in ("mig", "mps", "ts"):
    assert train[v] > train["none"], train
print("p99 ms: none %.0f, MIG %.0f, MPS %.0f, time-slicing %.0f; SLO minutes: time-slicing %.0f; "
      "training GPU-h: none %.0f, MIG %.0f, MPS %.0f, time-slicing %.0f" % (
          p99["none"], p99["mig"], p99["mps"], p99["ts"], slo["ts"], train["none"], train["mig"],
          train["mps"], train["ts"]))
PY

"$bin" twin compare "$tmp/mps.yaml" --vs-scenario "$tmp/ts.yaml" --seed 1 --json >"$tmp/c.json"
python3 - "$tmp/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["delta"]
assert d["p99_latency_ms_by_service"]["serving/chat-000000"] > 0, d
assert d["tidal"]["slo_minutes_violated"] > 0, d["tidal"]
assert d["tidal"]["training_effective_gpu_hours_beside_serving"] < 0, d["tidal"]
PY
"$bin" twin compare "$tmp/none.yaml" --vs-scenario "$tmp/mps.yaml" --seed 1 | grep -q 'training_gpu_hours_beside_serving'

# No gpu_sharing anywhere: none of the new keys.
"$bin" twin run examples/tidal/scenario.yaml --days 1 --json --quiet >"$tmp/tidal.json"
! grep -q -e gpu_sharing -e shared_replica_hours "$tmp/tidal.json"
