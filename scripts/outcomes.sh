#!/usr/bin/env bash
# The tables of docs/outcomes.md: the naive default cluster (examples/default.yaml, the built-in
# scenario) against examples/governed.yaml (the same cluster, teams and arrivals with every lever
# on), same seed, 7 days. Prints two Markdown tables (KPIs; waste by cause from each run's
# showback ledger, `steward cost review`) and the governed/naive SM-active ratio per seed.
# Usage: scripts/outcomes.sh [STEWARD] (default build/steward), from the repository root;
# OUTCOMES_SEEDS="1 2 3 4" (default) and OUTCOMES_DAYS=7 (default) choose the runs.
set -euo pipefail
bin=${1:-build/steward}
seeds=${OUTCOMES_SEEDS:-1 2 3 4}
days=${OUTCOMES_DAYS:-7}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The demand ceiling: the same arrivals on four times the nodes and quotas, so nothing waits.
# Its SM-active GPU-hours over the real cluster's capacity is the most any policy can show
# when every workload does the same work (tests/twin/governed_usage_test.cc).
python3 - "$tmp/unbounded.yaml" <<'PY'
import sys
s = open("examples/default.yaml").read()
def sub(a, b):
    global s
    assert a in s, a
    s = s.replace(a, b)
sub("nodes: 1280 ", "nodes: 5120 ")
for q in (2304, 3840, 1536, 640, 768, 1152):
    sub(f"quota_gpus: {q}}}", f"quota_gpus: {4 * q}}}")
open(sys.argv[1], "w").write(s)
PY
for seed in $seeds; do
  "$bin" twin run "$tmp/unbounded.yaml" --seed "$seed" --days "$days" --quiet --json \
    --memory-limit none >"$tmp/unbounded-$seed.json"
done
for seed in $seeds; do
  for run in naive governed; do
    scenario=examples/default.yaml
    [ "$run" = governed ] && scenario=examples/governed.yaml
    start=$(date +%s.%N)
    "$bin" twin run "$scenario" --seed "$seed" --days "$days" --quiet --json \
      --ledger "$tmp/$run-$seed.db" >"$tmp/$run-$seed.json"
    end=$(date +%s.%N)
    python3 -c "print(round($end - $start, 1))" >"$tmp/$run-$seed.wall"
    "$bin" cost review --db "$tmp/$run-$seed.db" --json --top 0 >"$tmp/$run-$seed.review.json"
  done
done
python3 - "$tmp" "$seeds" <<'PY'
import json, sys
tmp, seeds = sys.argv[1], sys.argv[2].split()
def load(run, seed):
    r = json.load(open(f"{tmp}/{run}-{seed}.json"))
    v = json.load(open(f"{tmp}/{run}-{seed}.review.json"))
    wall = open(f"{tmp}/{run}-{seed}.wall").read().strip()
    return r, v, wall
def pct(x): return f"{100 * x:.1f} %"
def hours(q, tier):
    w = q.get(tier)
    return "–" if not w or not w["count"] else f"{w['p50'] / 3600:.1f} / {w['p95'] / 3600:.1f}"
print("| seed | run | allocation | busy | SM-active | wait p50 / p95 (h): dev | production | training "
      "| SLO min | training GPU-h | lost to preemption (GPU-h, % of training) | lost: drain / failure (GPU-h) "
      "| tidal lent / reclaimed (GPU-h) | wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
ratios = []
for seed in seeds:
    sm = {}
    for run in ("naive", "governed"):
        r, v, wall = load(run, seed)
        q = r["queue_wait_seconds"]
        train = r["usage_by_kind"].get("training", {}).get("allocated_gpu_hours", 0)
        pre = r["preemption_lost_gpu_hours_by_tier"].get("training", 0)
        lost = r["faults"]["lost_gpu_hours_by_cause"]
        t = r.get("tidal")
        slo = f"{t['slo_minutes_violated']:.1f}" if t else "– (no SLO model)"
        lent = (f"{t['gpu_hours_lent']:.0f} / {t['gpu_hours_reclaimed']:.0f}"
                if t and t.get("lending") else "–")
        sm[run] = r["sm_active_utilization"]
        print(f"| {seed} | {run} | {pct(r['allocation_rate'])} | {pct(r['busy_utilization'])} | "
              f"{pct(r['sm_active_utilization'])} | {hours(q, 'dev')} | {hours(q, 'production')} | "
              f"{hours(q, 'training')} | {slo} | {train:.0f} | {pre:.0f} ({pct(pre / train if train else 0)}) | "
              f"{lost.get('drain', 0):.0f} / {lost.get('failure', 0):.0f} | {lent} | {wall} |")
    ratios.append((seed, sm["governed"] / sm["naive"]))
print()
causes = ["zombie", "over_request", "dataloader_stall", "low_efficiency", "startup"]
print("| seed | run | allocated | SM-active | " + " | ".join(causes) + " | free (unallocated) |")
print("|---|---|---|---|" + "---|" * len(causes) + "---|")
for seed in seeds:
    for run in ("naive", "governed"):
        r, v, _ = load(run, seed)
        by = {c: 0.0 for c in causes}
        for row in v["rows"]:
            for c, h in row.get("waste_gpu_hours_by_cause", {}).items():
                by[c] = by.get(c, 0) + h
        print(f"| {seed} | {run} | {v['allocated_gpu_hours']:.0f} | "
              f"{r['sm_active_gpu_hours']:.0f} | " + " | ".join(f"{by[c]:.0f}" for c in causes) +
              f" | {v['idle_gpu_hours']:.0f} |")
print()
print("SM-active, governed / naive: " + ", ".join(f"seed {s}: {x:.2f}x" for s, x in ratios))
ceil = []
for seed in seeds:
    u = json.load(open(f"{tmp}/unbounded-{seed}.json"))
    n, _, _ = load("naive", seed)
    c = u["sm_active_gpu_hours"] / n["capacity_gpu_hours"]
    ceil.append(f"seed {seed}: {100 * c:.1f} % ({c / n['sm_active_utilization']:.2f}x naive)")
print("Demand ceiling (the same arrivals, nothing waits), SM-active: " + ", ".join(ceil))
PY
