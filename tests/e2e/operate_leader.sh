#!/usr/bin/env bash
# End-to-end: two `steward operate --apply --leader-elect` replicas against the twin's
# Kubernetes API elect one leader on a coordination.k8s.io Lease; only the leader writes (the
# follower's attempts are refused by the gate and recorded once); when the leader stops, it
# releases the Lease and the other takes over and acts.
set -euo pipefail
bin=${1:?usage: operate_leader.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
source "$root/tests/e2e/lib/prometheus.sh"
fail() {  # With the replicas' logs.
  echo "FAIL: $*" >&2
  for f in "$tmp"/op-*.err; do echo "== $f" >&2; tail -5 "$f" >&2; done 2>/dev/null || true
  exit 1
}

start_kube_twin "$root/examples/kube/rehearsal.yaml" --speed 60 --dcgm-interval 10
start_dcgm_prometheus

# Failover here is by release (the leader exits), so the lease can be long enough that a loaded
# CI machine never delays a renewal past the 8 s deadline (which would be a real, but unwanted
# here, change of leader).
operate() {  # operate IDENTITY
  "$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --apply --leader-elect \
    --identity "$1" --lease default/steward-operate --lease-duration 15 --renew-deadline 8 \
    --retry-period 1 --interval 0.5 --tier-step 0 --audit "$tmp/$1.db" \
    --state "$tmp/$1.state.db" >"$tmp/op-$1.out" 2>"$tmp/op-$1.err" &
  pids+=($!)
  eval "pid_$1=$!"
}
holder() { k get lease -n default steward-operate -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
applied() { grep -c "^.* applied " "$tmp/op-$1.out" || true; }

ten_running() {
  [ "$(rows get pods -A --field-selector status.phase=Running,metadata.namespace!=gpu-operator)" = 10 ]
}
wait_until 60 "the rehearsal's 10 GPU pods run" ten_running

operate a
a_leads() { [ "$(holder)" = a ]; }
wait_until 30 "replica a holds the Lease" a_leads
operate b
sleep 2
[ "$(holder)" = a ] || fail "the Lease moved to $(holder) while a was healthy"

# A fault for both replicas to see.
node=$(k get pods -n serving -o jsonpath='{.items[0].spec.nodeName}')
curl -sf -X POST "$dash_url/api/nodes/$node/fault" -d '{"xid":79,"gpu":7}' >/dev/null ||
  fail "fault injection"
drained() { [ "$(rows get pods -n serving --field-selector spec.nodeName="$node")" = 0 ]; }
wait_until 90 "the leader drains $node" drained
[ "$(k get node "$node" -o jsonpath='{.spec.unschedulable}')" = true ] || fail "not cordoned"
[ "$(applied a)" -ge 3 ] || fail "the leader applied $(applied a) actions: $(cat "$tmp/op-a.out")"
[ "$(applied b)" = 0 ] || fail "the follower wrote: $(cat "$tmp/op-b.out")"
# Refusals are recorded once per change of state: the first write b attempted (the stack
# finding's Event or the cordon, whichever its pass reached first).
grep -q "failed .*not the leader" "$tmp/op-b.out" ||
  fail "the follower's refused write is not recorded: $(cat "$tmp/op-b.out")"

# The leader stops (SIGTERM): it releases the Lease, b takes over and acts on what it knows.
kill -TERM "$pid_a"
wait "$pid_a" || true
b_leads() { [ "$(holder)" = b ]; }
wait_until 30 "replica b takes the Lease over" b_leads
b_acted() { [ "$(applied b)" -ge 1 ]; }
wait_until 30 "the new leader acts" b_acted
grep -q "became the leader" "$tmp/op-b.err" || fail "b never said it leads"
"$bin" operate log --audit "$tmp/b.db" | grep -q "applied cordon node/$node" ||
  fail "b's audit log: $("$bin" operate log --audit "$tmp/b.db")"
echo "one leader wrote at a time: a, then b after a released the Lease"
