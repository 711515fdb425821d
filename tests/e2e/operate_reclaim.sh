#!/usr/bin/env bash
# End-to-end: idle reclaim by `steward operate` against the twin's Kubernetes API, with Debian's
# Prometheus scraping the twin's dcgm-exporter series (examples/kube/idle-notebooks.yaml: two
# forgotten notebooks, one in use, one idle but labelled steward.io/reclaim-exempt=true).
#   - the dcgm-exporter `pod` label names the pods kubectl lists (one naming for both);
#   - dry run: operate plans a reclaim-notice and then a reclaim-evict of exactly the forgotten
#     notebooks' pods and writes nothing (no annotation, no event, the pods stay);
#   - --apply: the notice lands as the steward.io/idle-since annotation and an
#     IdleGPUReclaimNotice Event, then the pods are evicted through the Eviction API; the
#     working and the exempt notebooks are never touched; the audit log holds every write.
# Times: the twin runs at 60x; operate's reclaim clock is the wall clock (notice after 3 s of
# idle GPUs, eviction after 8 s).
set -euo pipefail
bin=${1:?usage: operate_reclaim.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"
source "$root/tests/e2e/lib/prometheus.sh"

start_kube_twin "$root/examples/kube/idle-notebooks.yaml" --speed 60 --dcgm-interval 10
start_dcgm_prometheus

four_running() {
  [ "$(rows get pods -n research --field-selector status.phase=Running)" = 4 ]
}
wait_until 60 "the four notebooks run" four_running
pods_of() { k get pods -n research -l "app.kubernetes.io/name=$1" -o jsonpath='{.items[*].metadata.name}'; }
forgotten=$(pods_of forgotten)
working=$(pods_of working)
kept=$(pods_of kept)
[ "$(wc -w <<<"$forgotten")" = 2 ] && [ -n "$working" ] && [ -n "$kept" ] ||
  fail "pods: forgotten=[$forgotten] working=[$working] kept=[$kept]"

# Prometheus sees every notebook's GPUs under the pod name kubectl shows; the forgotten and the
# kept ones at 0 SM-active once their three active minutes (3 s here) are over.
sm_active_of() {
  curl -sf "$prom_url/api/v1/query" --data-urlencode \
    "query=avg by (pod) (DCGM_FI_PROF_SM_ACTIVE{namespace=\"research\",pod=\"$1\"})" |
    /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'
}
idle_seen() {
  for p in $forgotten $kept; do [ "$(sm_active_of "$p")" = 0 ] || return 1; done
  [ "$(sm_active_of "$working")" != none ] && [ "$(sm_active_of "$working")" != 0 ]
}
wait_until 60 "Prometheus shows the idle notebooks by their pod names" idle_seen

reclaim_flags=(--reclaim-notify-after 0.05 --reclaim-after 0.133 --interval 1 --tier-step 0
  --alert-tenant-share 0 --no-stack-health)

# --- Dry run: plan lines only -------------------------------------------------------------------
"$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --audit "$tmp/dry.db" \
  "${reclaim_flags[@]}" >"$tmp/dry.out" 2>"$tmp/dry.log" &
dry=$!
pids+=($dry)
planned_both() {
  for p in $forgotten; do grep -q "planned reclaim-evict pod/research/$p:" "$tmp/dry.out" || return 1; done
}
wait_until 60 "the dry run plans both reclaims" planned_both
kill -TERM $dry
wait $dry 2>/dev/null || true
for p in $forgotten; do
  grep -q "planned reclaim-notice pod/research/$p: .*steward.io/idle-since" "$tmp/dry.out" ||
    fail "no planned notice for $p: $(cat "$tmp/dry.out")"
done
grep -q "planned reclaim-notice event pod\|IdleGPUReclaimNotice" "$tmp/dry.out" ||
  fail "no planned notice Event: $(cat "$tmp/dry.out")"
for p in $working $kept; do
  if grep -q "pod/research/$p" "$tmp/dry.out"; then fail "the dry run touched $p"; fi
done
[ "$(rows get pods -n research --field-selector status.phase=Running)" = 4 ] || fail "the dry run evicted"
for p in $forgotten; do
  [ -z "$(k get pod -n research "$p" -o jsonpath='{.metadata.annotations.steward\.io/idle-since}')" ] ||
    fail "the dry run annotated $p"
done
[ "$(rows get events -n research --field-selector reason=IdleGPUReclaimNotice)" = 0 ] ||
  fail "the dry run emitted an Event"

# --- Apply: notice, then eviction -------------------------------------------------------------
"$bin" operate --kubeconfig "$kc" --prometheus "$prom_url" --audit "$tmp/audit.db" --apply \
  "${reclaim_flags[@]}" >"$tmp/apply.out" 2>"$tmp/apply.log" &
pids+=($!)
noticed() {
  for p in $forgotten; do
    [ -n "$(k get pod -n research "$p" -o jsonpath='{.metadata.annotations.steward\.io/idle-since}')" ] ||
      return 1
  done
}
wait_until 60 "the notice annotates both forgotten notebooks" noticed
[ "$(rows get events -n research --field-selector reason=IdleGPUReclaimNotice)" = 2 ] ||
  fail "expected two notice Events: $(k get events -n research)"
evicted_both() {
  for p in $forgotten; do grep -q "applied reclaim-evict pod/research/$p:" "$tmp/apply.out" || return 1; done
}
wait_until 60 "both forgotten notebooks are evicted" evicted_both
evicted_events() { [ "$(rows get events -n research --field-selector reason=Evicted)" -ge 2 ]; }
wait_until 30 "the twin reports both evictions" evicted_events
for p in $working $kept; do
  if grep -q "pod/research/$p" "$tmp/apply.out"; then fail "--apply touched $p: $(cat "$tmp/apply.out")"; fi
  k get pod -n research "$p" >/dev/null || fail "$p is gone"
done

"$bin" operate log --audit "$tmp/audit.db" --json | /usr/bin/python3 -c "
import json, sys
rows = json.load(sys.stdin)
actions = [r['action'] for r in rows if r['mode'] == 'applied']
assert actions.count('reclaim-evict') >= 4, actions  # Two evictions and two Events.
assert actions.count('reclaim-notice') >= 4, actions  # Two annotations and two Events.
forgotten = '$forgotten'.split()
for r in rows:
    if r['action'] == 'reclaim-evict' and r['object'].startswith('pod/'):
        assert r['object'].split('/')[2] in forgotten, r" || fail "audit log: $(cat "$tmp/apply.out")"
echo "operate noticed, then reclaimed, exactly the idle, unexempted notebooks"
