#!/usr/bin/env bash
# End-to-end: `steward health nodes` as a script uses it: YAML from stdin (what `kubectl get nodes
# -o yaml` prints), JSON files, and each exit status (0 nothing at or above --fail-on, 1 findings
# at or above it, 2 input it cannot read) with the error naming the file and position.
set -euo pipefail
bin=$(realpath "${1:?usage: health_nodes_cli.sh STEWARD}")
source "$(dirname "$0")/lib/harness.sh"


# A healthy GPU node and one whose GPU monitor reports an XID (critical), as kubectl prints them.
cat >"$tmp/nodes.yaml" <<'YAML'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-ok
    labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
  status:
    capacity: {nvidia.com/gpu: "8"}
    allocatable: {nvidia.com/gpu: "8"}
    conditions: [{type: Ready, status: "True"}]
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-xid
    labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
  status:
    capacity: {nvidia.com/gpu: "8"}
    allocatable: {nvidia.com/gpu: "8"}
    conditions:
    - {type: Ready, status: "True"}
    - {type: GpuXidError, status: "True", reason: Xid79, message: GPU has fallen off the bus}
metadata: {resourceVersion: ""}
YAML

# Critical finding, default --fail-on critical: exit 1, findings still printed (stdin, YAML).
rc=0; "$bin" health nodes - --json <"$tmp/nodes.yaml" >"$tmp/f.json" 2>"$tmp/err.log" || rc=$?
[ "$rc" = 1 ] || fail "critical finding: exit $rc, want 1"
/usr/bin/python3 - "$tmp/f.json" <<'PY' || fail "findings of the YAML list"
import json, sys
f = json.load(open(sys.argv[1]))
got = {(x["node"], x["check"], x["severity"]) for x in f}
assert ("gpu-xid", "gpu-condition", "critical") in got, got
assert not any(x["node"] == "gpu-ok" for x in f), f
PY
# --fail-on never: exit 0 with the same findings.
rc=0; "$bin" health nodes - --fail-on never --json <"$tmp/nodes.yaml" >"$tmp/never.json" || rc=$?
[ "$rc" = 0 ] || fail "--fail-on never: exit $rc"
cmp -s "$tmp/f.json" "$tmp/never.json" || fail "--fail-on changed the findings"

# Only a warning (a cordoned GPU node): 0 under critical, 1 under --fail-on warning.
sed -e 's/name: gpu-xid/name: gpu-cordoned/' -e 's/type: GpuXidError, status: "True"/type: GpuXidError, status: "False"/' \
  -e '/name: gpu-cordoned/{n;n;s/^  status:/  spec: {unschedulable: true}\n  status:/}' "$tmp/nodes.yaml" >"$tmp/warn.yaml"
grep -q "unschedulable: true" "$tmp/warn.yaml" || fail "fixture: no cordoned node"
rc=0; "$bin" health nodes "$tmp/warn.yaml" >"$tmp/warn.txt" || rc=$?
[ "$rc" = 0 ] || fail "warning under --fail-on critical: exit $rc"
grep -q "gpu-node-cordoned" "$tmp/warn.txt" || fail "cordoned GPU node not reported: $(cat "$tmp/warn.txt")"
rc=0; "$bin" health nodes "$tmp/warn.yaml" --fail-on warning >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "warning under --fail-on warning: exit $rc"

# The same nodes as JSON give the same findings as YAML.
/usr/bin/python3 -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
  "$tmp/nodes.yaml" "$tmp/nodes.json"
"$bin" health nodes "$tmp/nodes.json" --json --fail-on never >"$tmp/fj.json"
cmp -s "$tmp/f.json" "$tmp/fj.json" || fail "JSON and YAML inputs disagree"

# Bad input: exit 2 and an error naming the file and where.
printf '{"items": [\n  {"metadata": {"name": "n", "x": 1e400}}]}\n' >"$tmp/huge.json"
rc=0; "$bin" health nodes "$tmp/huge.json" 2>"$tmp/err.log" || rc=$?
[ "$rc" = 2 ] || fail "1e400: exit $rc, want 2"
grep -q "huge.json:2:" "$tmp/err.log" || fail "1e400 position: $(cat "$tmp/err.log")"
printf 'items:\n- metadata:\n    name: a\n    name: b\n' >"$tmp/dup.yaml"
rc=0; "$bin" health nodes "$tmp/dup.yaml" 2>"$tmp/err.log" || rc=$?
[ "$rc" = 2 ] || fail "duplicate key: exit $rc, want 2"
grep -q "dup.yaml:4:" "$tmp/err.log" || fail "duplicate key position: $(cat "$tmp/err.log")"
echo '{"apiVersion":"v1","kind":"List","items":[]}' >"$tmp/empty.json"
"$bin" health nodes "$tmp/empty.json" --json >"$tmp/empty.out" || fail "an empty List: exit $?"
[ "$(tr -d ' \n' <"$tmp/empty.out")" = "[]" ] || fail "an empty List: $(cat "$tmp/empty.out")"
printf '# no objects\n' >"$tmp/blank.yaml"
rc=0; "$bin" health nodes "$tmp/blank.yaml" 2>"$tmp/err.log" || rc=$?
[ "$rc" = 2 ] || fail "no objects: exit $rc, want 2"
grep -q "blank.yaml: no objects" "$tmp/err.log" || fail "no-objects message: $(cat "$tmp/err.log")"
rc=0; "$bin" health nodes - </dev/null 2>"$tmp/err.log" || rc=$?
[ "$rc" = 2 ] || fail "empty stdin: exit $rc, want 2"
grep -q "<stdin>" "$tmp/err.log" || fail "stdin not named: $(cat "$tmp/err.log")"
rc=0; "$bin" health nodes "$tmp/missing.json" 2>"$tmp/err.log" || rc=$?
[ "$rc" = 2 ] || fail "missing file: exit $rc, want 2"
rc=0; "$bin" health nodes "$tmp/nodes.yaml" --fail-on sometimes 2>"$tmp/err.log" || rc=$?
[ "$rc" = 2 ] || fail "bad --fail-on: exit $rc, want 2"
echo "health_nodes_cli: ok"
