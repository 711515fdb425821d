#!/usr/bin/env bash
# End-to-end: `kill -9` of `steward rollout run` mid-batch, twice, then a restart, ends in
# exactly the state of an uninterrupted run (docs/rollout.md, "Durability"): same status, same
# decision log (the replay checks every logged decision and appends past the end of the log),
# no node upgraded twice, none skipped, maxUnavailable kept. Both the good driver (killed during
# the canary and during a later batch) and the bad one (killed while rolling back).
set -euo pipefail
bin=${1:?usage: rollout_crash.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/harness.sh"
py=/usr/bin/python3
ex="$root/examples/rollouts"

# Prints a field of the stored status ("" while there is none).
field() {
  "$bin" rollout status --state "$1" --json 2>/dev/null |
    "$py" -c "import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1], {}, {'s': s}))" "$2" \
    2>/dev/null || true
}

# Runs PLAN paced, kills it with SIGKILL once CONDITION (a Python expression on the status `s`)
# holds, and checks the run was really cut short.
run_and_kill() {
  local plan=$1 db=$2 condition=$3
  "$bin" rollout run "$ex/$plan.yaml" --state "$db" --pace 0.02 >"$tmp/paced.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 600); do
    [ "$(field "$db" "$condition")" = True ] && break
    kill -0 "$pid" 2>/dev/null || fail "$plan finished before it could be killed"
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null || fail "$plan was not running at the kill"
  wait "$pid" 2>/dev/null || true
  [ "$(field "$db" "s['state']")" = running ] || fail "$plan: killed after it finished"
}

for plan in good-driver bad-driver; do
  "$bin" rollout run "$ex/$plan.yaml" --state "$tmp/$plan-whole.db" >/dev/null 2>&1 ||
    fail "uninterrupted $plan"
  "$bin" rollout status --state "$tmp/$plan-whole.db" --json >"$tmp/$plan-whole.json"
done

# Good driver: killed in the canary batch (a node mid-upgrade), then in the last batch.
db="$tmp/good-driver-crash.db"
run_and_kill good-driver "$db" \
  "any(n['state'] not in ('', 'upgrade-required', 'upgrade-done') for n in s['nodes']) and s['nodes_upgraded'] >= 1"
run_and_kill good-driver "$db" "s['current_batch'] == 2 and s['nodes_upgraded'] >= 7"
"$bin" rollout run "$ex/good-driver.yaml" --state "$db" >/dev/null 2>&1 || fail "good restart"
"$bin" rollout status --state "$db" --json >"$tmp/good-driver-crash.json"

# Bad driver: killed during the rollback.
db="$tmp/bad-driver-crash.db"
run_and_kill bad-driver "$db" "s['rolling_back'] and s['nodes_rolled_back'] >= 1"
"$bin" rollout run "$ex/bad-driver.yaml" --state "$db" >/dev/null 2>&1 || fail "bad restart"
"$bin" rollout status --state "$db" --json >"$tmp/bad-driver-crash.json"

"$py" - "$tmp" <<'PY' || fail "the restarted runs differ from the uninterrupted ones"
import json, sys
tmp = sys.argv[1]
for plan, end in (("good-driver", "succeeded"), ("bad-driver", "rolled_back")):
    whole = json.load(open(f"{tmp}/{plan}-whole.json"))
    crash = json.load(open(f"{tmp}/{plan}-crash.json"))
    assert whole["state"] == end, (plan, whole["state"])
    for k in whole:
        if whole[k] != crash[k]:
            sys.exit(f"{plan}: {k} differs: {str(whole[k])[:300]} vs {str(crash[k])[:300]}")
    assert [d["seq"] for d in crash["log"]] == list(range(len(crash["log"]))), "log has gaps"
    assert all(n["upgrades"] <= 1 for n in crash["nodes"]), "a node upgraded twice"
    assert crash["max_unavailable_seen"] <= crash["max_unavailable"]
    if end == "succeeded":
        assert all(n["upgrades"] == 1 for n in crash["nodes"]), "a node skipped"
PY
echo "rollout crash: ok"
