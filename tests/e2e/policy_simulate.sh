#!/bin/bash
# steward policy simulate: text and JSON on the example, the result independent of file order,
# --cycles, and an input error naming file:line and field.
set -euo pipefail
bin="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex=examples/kueue/simulate/reclaim.yaml

"$bin" policy simulate "$ex" >"$tmp/out.txt"
grep -q "ns/a-1  admitted  cq-a" "$tmp/out.txt" || { cat "$tmp/out.txt"; echo "a-1 not admitted"; exit 1; }
grep -q "preempted by ns/a-1  (InCohortReclamation)" "$tmp/out.txt" || { echo "no reclaim"; exit 1; }

"$bin" policy simulate "$ex" --json >"$tmp/out.json"
/usr/bin/python3 - "$tmp/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w = {x['name']: x for x in r['workloads']}
assert w['a-1']['state'] == 'admitted', w['a-1']
assert w['a-1']['flavors']['main'] == {'cpu': 'default', 'nvidia.com/gpu': 'default'}, w['a-1']
assert w['b-big']['state'] == 'preempted' and w['b-big']['preempted_by'] == 'ns/a-1', w['b-big']
assert w['b-big']['reason'] == 'InCohortReclamation', w['b-big']
q = {x['name']: x for x in r['cluster_queues']}
assert q['cq-a']['usage']['default']['nvidia.com/gpu'] == 4, q['cq-a']
assert q['cq-b']['usage']['default']['nvidia.com/gpu'] == 0, q['cq-b']
PY

# The same objects split over two files, in the other order: the same result.
awk 'BEGIN{RS="---\n"} NR<=5 {printf "%s---\n", $0 > "'"$tmp"'/policy.yaml"} NR>5 {printf "%s", $0 > "'"$tmp"'/wl.yaml"}' "$ex"
"$bin" policy simulate "$tmp/wl.yaml" "$tmp/policy.yaml" --json | cmp - "$tmp/out.json"

# One cycle: a-1 only issues its preemption.
"$bin" policy simulate "$ex" --json --cycles 1 | grep -q '"cycles": 1'

# Errors name file:line and the field.
cat >"$tmp/bad.yaml" <<'Y'
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: a
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - resources: {requests: {nvidia.com/gpu: "lots"}}
Y
if "$bin" policy simulate "$tmp/bad.yaml" 2>"$tmp/err"; then echo "bad quantity accepted"; exit 1; fi
grep -q "bad.yaml:12:.*Workload w: spec.podSets\[0\].template.spec.containers\[0\].resources.requests.nvidia.com/gpu" "$tmp/err" \
  || { cat "$tmp/err"; echo "error does not name file:line and field"; exit 1; }
echo "policy simulate ok"
