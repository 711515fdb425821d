#!/usr/bin/env bash
# steward policy import/export: JSON shape, max_usable, errors with object/field/line, and the
# import -> export -> import round trip on the shipped examples.
set -euo pipefail
bin=${1:?usage: policy_roundtrip.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$bin" policy import examples/case2/with-limits.yaml --json >"$tmp/a.json"
python3 - "$tmp/a.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
q = {c["name"]: c for c in j["cluster_queues"]}
a = q["team-a"]["quotas"][0]
assert q["team-a"]["cohort"] == "org", q["team-a"]
assert (a["flavor"], a["resource"], a["nominal"], a["borrowing_limit"], a["lending_limit"]) == \
    ("h100", "nvidia.com/gpu", 256, 128, None), a
assert a["max_usable"] == 384, a  # 256 + borrowingLimit 128 (cohort holds 512).
PY
"$bin" policy import examples/kueue/lending-limit.yaml --json | python3 -c '
import json, sys
q = {c["name"]: c["quotas"][0]["max_usable"] for c in json.load(sys.stdin)["cluster_queues"]}
assert q == {"team-a": 10.0, "team-b": 21.0}, q'

for f in examples/case2/no-limits.yaml examples/case2/with-limits.yaml examples/kueue/gpu-org.yaml \
         examples/volcano/queues.yaml examples/kueue/config.yaml; do
  "$bin" policy import "$f" --json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("warnings"); print(json.dumps(j, sort_keys=True))' >"$tmp/1.json"
  "$bin" policy export --kueue "$f" >"$tmp/exported.yaml" 2>/dev/null
  "$bin" policy import "$tmp/exported.yaml" --json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("warnings"); print(json.dumps(j, sort_keys=True))' >"$tmp/2.json"
  cmp -s "$tmp/1.json" "$tmp/2.json" || { echo "round trip differs for $f"; diff "$tmp/1.json" "$tmp/2.json" | head; exit 1; }
done

cat >"$tmp/bad.yaml" <<'Y'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: broken}
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: lots}]
Y
if "$bin" policy import "$tmp/bad.yaml" >"$tmp/out" 2>&1; then echo "accepted an invalid spec"; exit 1; fi
grep -q "bad.yaml:9:" "$tmp/out" && grep -q "ClusterQueue broken" "$tmp/out" && grep -q "nominalQuota" "$tmp/out" \
  || { echo "error lacks position/object/field:"; cat "$tmp/out"; exit 1; }
# Without FILE, export writes the built-in scenario's policy: its teams as StrictFIFO queues.
"$bin" policy export --kueue >"$tmp/default.yaml"
grep -q "queueingStrategy: StrictFIFO" "$tmp/default.yaml" || { echo "default export lacks StrictFIFO"; exit 1; }
"$bin" policy import "$tmp/default.yaml" --json >"$tmp/d.json"
python3 - "$tmp/d.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["cluster_queues"] and all(c["cohort"] is None for c in j["cluster_queues"]), j
PY
# With --json the warnings are in the JSON only, not on stderr as well.
"$bin" policy import tests/govern/testdata/unknown-fields.yaml --json >"$tmp/w.json" 2>"$tmp/w.err"
[ ! -s "$tmp/w.err" ] || { echo "warnings printed twice:"; cat "$tmp/w.err"; exit 1; }
python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["warnings"]) == 3' "$tmp/w.json"
echo "policy round trip ok"
