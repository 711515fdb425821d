#!/usr/bin/env bash
# The governed cluster (examples/governed.yaml, docs/outcomes.md) against the naive default
# (examples/default.yaml), same seed, two days (the tidal controller lends from day 2, after a
# day of history). Checks: zero SLO minutes; tidal lending happened and its reclaimed GPU-hours
# are reported; SM-active above the default's; the same arrivals in both runs; and the usage
# identity end to end — every batch or training workload that ran start to finish without an
# interruption in both runs did the same SM work (its SM-active GPU-hours in the showback
# ledger), wherever and on however many GPUs it ran. No wall-clock assertions.
set -euo pipefail
bin=${1:?usage: governed_cluster.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
days=2
for run in naive governed; do
  scenario=examples/default.yaml
  [ "$run" = governed ] && scenario=examples/governed.yaml
  "$bin" twin run "$scenario" --seed 1 --days $days --quiet --json \
    --ledger "$tmp/$run.db" --events "$tmp/$run-events.db" >"$tmp/$run.json"
done
"$bin" twin compare examples/default.yaml --vs-scenario examples/governed.yaml --seed 1 \
  --days 0.5 >"$tmp/compare.txt"
grep -q 'sm_active' "$tmp/compare.txt" || grep -qi 'SM-active' "$tmp/compare.txt"
python3 - "$tmp" <<'PY'
import json, sqlite3, sys
tmp = sys.argv[1]
n, g = (json.load(open(f"{tmp}/{r}.json")) for r in ("naive", "governed"))
t = g["tidal"]
assert t["slo_minutes_violated"] == 0, t["slo_minutes_violated"]
assert t["lending"] and t["gpu_hours_lent"] > 0, t
assert "gpu_hours_reclaimed" in t and t["gpu_hours_reclaimed"] >= 0, t
assert t["reclaims"] == 0 or t["gpu_hours_reclaimed"] > 0, t
assert g["sm_active_utilization"] > n["sm_active_utilization"], (
    g["sm_active_utilization"], n["sm_active_utilization"])
assert "tidal" not in n  # The default has no serving model: its report is unchanged.

def events(run):
    c = sqlite3.connect(f"{tmp}/{run}-events.db")
    arrivals = {w: t for w, t in c.execute("select workload, t_seconds from events where kind='arrive'")}
    bad = {w for (w,) in c.execute(
        "select distinct workload from events where kind not in "
        "('arrive','admit','place','start','finish','checkpoint','scale')")}
    finished = {w for (w,) in c.execute("select workload from events where kind='finish'")}
    return arrivals, finished - bad

def sm_hours(run):
    c = sqlite3.connect(f"{tmp}/{run}.db")
    return {w: h for w, h in c.execute(
        "select workload, sum(sm_active_gpu_hours) from allocations group by workload")}

an, fn = events("naive")
ag, fg = events("governed")
assert an == ag, "arrivals differ"
sn, sg = sm_hours("naive"), sm_hours("governed")
clean = sorted(w for w in fn & fg
               if not w.startswith(("prod-inference/", "research/")) and w in sn and w in sg)
assert len(clean) > 1000, len(clean)
off = [(w, sn[w], sg[w]) for w in clean if abs(sn[w] - sg[w]) > 1e-6 * max(1.0, sn[w]) + 1e-3]
assert not off, off[:5]
print(f"governed: SM-active {g['sm_active_utilization']:.3f} vs {n['sm_active_utilization']:.3f}; "
      f"{len(clean)} workloads did the same SM work in both runs; "
      f"{t['gpu_hours_lent']:.0f} GPU-h lent, {t['gpu_hours_reclaimed']:.0f} reclaimed, 0 SLO minutes")
PY
