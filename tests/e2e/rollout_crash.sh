#!/usr/bin/env bash
# End-to-end: `kill -9` of `steward rollout run` mid-batch, twice, then a restart, ends in
# exactly the state of an uninterrupted run (docs/rollout.md, "Durability"): same status, same
# decision log (the replay checks every logged decision and appends past the end of the log),
# no node upgraded twice, none skipped, maxUnavailable kept. Both the good driver (killed during
# the canary and during a later batch) and the bad one (killed while rolling back). The kills
# land after a given number of decisions, read from the uninterrupted run's log, so the test
# does not race the run (it used to poll the state file and kill on a timer).
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

# The decision count after which a run is killed: the first decision of the uninterrupted run's
# log (WHOLE, a status JSON) for which CONDITION (a Python expression on the decision `d`, the
# run `s` and the seq `i`) holds, plus one. A kill point taken from the log, not a timer, so the
# test does not depend on how fast the machine is.
kill_point() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for i, d in enumerate(s["log"]):
    if eval(sys.argv[2]):
        print(i + 1)
        break
else:
    sys.exit(f"no decision matches {sys.argv[2]}")
PY
}

# Runs PLAN until it has logged N decisions, where it SIGKILLs itself (rollout run's hidden
# --test-kill-after-decisions: right after the engine step that reached N committed), and
# checks the run was really cut short.
run_and_kill() {
  local plan=$1 db=$2 n=$3
  local code=0
  # In a subshell, so the shell's "Killed" notice goes to the log too.
  ("$bin" rollout run "$ex/$plan.yaml" --state "$db" --test-kill-after-decisions "$n" || exit $?) \
    >"$tmp/killed.log" 2>&1 || code=$?
  [ "$code" = 137 ] || fail "$plan: not killed at $n decisions (exit $code)"
  [ "$(field "$db" "s['state']")" = running ] || fail "$plan: killed after it finished"
  [ "$(field "$db" "s['decisions'] >= $n")" = True ] || fail "$plan: the kill lost decisions"
}

for plan in good-driver bad-driver; do
  "$bin" rollout run "$ex/$plan.yaml" --state "$tmp/$plan-whole.db" >/dev/null 2>&1 ||
    fail "uninterrupted $plan"
  "$bin" rollout status --state "$tmp/$plan-whole.db" --json >"$tmp/$plan-whole.json"
done

# Good driver: killed in the canary batch (its first node just got the new version, mid-upgrade),
# then in the last batch (its first node just got the new version).
good="$tmp/good-driver-whole.json"
first=$(kill_point "$good" "d['kind'] == 'node' and d['to'] == 'pod-restart-required'")
late=$(kill_point "$good" "d['kind'] == 'node' and d['to'] == 'pod-restart-required' and d['object'] in s['batches'][-1]['nodes']")
db="$tmp/good-driver-crash.db"
run_and_kill good-driver "$db" "$first"
[ "$(field "$db" "s['nodes_upgraded'] >= 1 and s['current_batch'] == 0")" = True ] ||
  fail "good-driver: the first kill was not in the canary batch"
run_and_kill good-driver "$db" "$late"
[ "$(field "$db" "s['batches'][-1]['state'] == 'promote'")" = True ] ||
  fail "good-driver: the second kill was not in the last batch"
"$bin" rollout run "$ex/good-driver.yaml" --state "$db" >/dev/null 2>&1 || fail "good restart"
"$bin" rollout status --state "$db" --json >"$tmp/good-driver-crash.json"

# Bad driver: killed during the rollback, once a node got the old version back.
bad="$tmp/bad-driver-whole.json"
n=$(kill_point "$bad" "d['kind'] == 'node' and d['to'] == 'pod-restart-required' and any(e['kind'] == 'batch' and e['to'] == 'rollback' for e in s['log'][:i])")
db="$tmp/bad-driver-crash.db"
run_and_kill bad-driver "$db" "$n"
[ "$(field "$db" "s['rolling_back'] and s['nodes_rolled_back'] >= 1")" = True ] ||
  fail "bad-driver: the kill was not during the rollback"
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
