#!/usr/bin/env bash
# The GPU-sharing figures of docs/tidal.md ("Sharing a GPU"): examples/tidal/sharing.yaml (MPS)
# and its variants — no sharing (replicas on whole GPUs, training quota 16), MIG (3g.40gb
# instances), time-slicing — seeds 1-3, as a Markdown table. The variants are the seds of
# tests/e2e/twin_tidal_sharing.sh. Usage: scripts/tidal-sharing-figures.sh [STEWARD] (default
# build/steward), from the repository root.
set -euo pipefail
bin=${1:-build/steward}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
scenario=examples/tidal/sharing.yaml
cp "$scenario" "$tmp/mps.yaml"
sed 's/gpu_sharing: mps }/gpu_sharing: time-slicing }/' "$scenario" >"$tmp/ts.yaml"
sed 's/gpu_milli: 500 # /mig_profile: 3g.40gb # /' "$scenario" >"$tmp/mig.yaml"
sed 's/gpu_milli: 500 # replica share/gpu_milli: 1000 # replica share/;
     s/quota_gpus: 24}   # training quota/quota_gpus: 16}   # training quota/' \
  "$scenario" >"$tmp/none.yaml"
for seed in 1 2 3; do
  for v in none mig mps ts; do
    "$bin" twin run "$tmp/$v.yaml" --seed $seed --json --quiet >"$tmp/$v$seed.json"
  done
done
python3 - "$tmp" <<'PY'
import json, sys, os
d = sys.argv[1]
print("| seed | run | p99 (ms) | SLO min | replica-h beside / slowed | training GPU-h | beside serving: held / effective | allocation | SM-active | training JCT p50 (h) |")
print("|---|---|---|---|---|---|---|---|---|---|")
names = {"none": "no sharing", "mig": "MIG", "mps": "MPS", "ts": "time-slicing"}
for seed in (1, 2, 3):
    for v in ("none", "mig", "mps", "ts"):
        j = json.load(open(os.path.join(d, f"{v}{seed}.json")))
        t = j["tidal"]; s = t["services"][0]; g = t["gpu_sharing"]
        print(f"| {seed} | {names[v]} | {s['p99_latency_ms']:.0f} | {s['slo_minutes_violated']:.0f} | "
              f"{s['shared_replica_hours']:.0f} / {s['slowed_replica_hours']:.0f} | "
              f"{t['training_gpu_hours']:.0f} | {g['training_gpu_hours_beside_serving']:.1f} / "
              f"{g['training_effective_gpu_hours_beside_serving']:.1f} | "
              f"{100 * j['allocation_rate']:.1f} % | {100 * j['sm_active_utilization']:.1f} % | "
              f"{j['training_jct_seconds']['p50'] / 3600:.1f} |")
PY
