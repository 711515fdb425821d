#!/usr/bin/env bash
# End-to-end: the twin replays the real Alibaba v2023 trace (examples/alibaba) and its report
# accounts for every GPU pod and GPU-hour of the CSV, recomputed here independently.
# Skips (exit 0 with a note) when the shared data is not present.
set -euo pipefail
bin=${1:?usage: twin_alibaba.sh STEWARD}
data=${STEWARD_DATA:-$(pwd)/../shared/data}
pods=$data/alibaba-gpu-v2023/openb_pod_list_default.csv
if [ ! -f "$pods" ]; then
  echo "SKIP: $pods not found (set STEWARD_DATA)"
  exit 0
fi
export STEWARD_DATA=$data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" twin run examples/alibaba/scenario.yaml --json >"$tmp/r.json"
python3 - "$tmp/r.json" "$pods" <<'PY'
import csv, json, sys
r = json.load(open(sys.argv[1]))
gpu_pods, gpu_hours = 0, 0.0
startup = 90  # policies.startup_seconds default: GPUs are held while the pod starts.
for x in csv.DictReader(open(sys.argv[2])):
    g = int(x["num_gpu"])
    if g == 0:
        continue
    c, d = int(x["creation_time"]), int(x["deletion_time"])
    s = int(x["scheduled_time"] or c)
    gpu_pods += 1
    gpu_hours += g * (max(1, d - max(c, s)) + startup) / 3600
assert r["total_gpus"] == 6212, r["total_gpus"]
assert r["total_nodes"] == 1213, r["total_nodes"]
assert r["workloads"]["submitted"] == gpu_pods == 7064, (r["workloads"]["submitted"], gpu_pods)
assert r["workloads"]["completed"] == gpu_pods, r["workloads"]["completed"]
assert abs(r["allocated_gpu_hours"] - gpu_hours) < 0.01, (r["allocated_gpu_hours"], gpu_hours)
assert r["sm_active_gpu_hours"] < r["allocated_gpu_hours"]
print(f"ok: {gpu_pods} GPU pods, {gpu_hours:.2f} GPU-hours replayed")
PY
