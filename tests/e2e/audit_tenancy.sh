#!/usr/bin/env bash
# End-to-end: `steward audit tenancy` on examples/tenancy/cluster finds exactly the violations
# listed in examples/tenancy/planted.tsv, in all three formats; --fail-on decides the exit
# status; bad input exits 2 naming file, line and field; a clean set exits 0.
set -euo pipefail
bin=${1:?usage: audit_tenancy.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ex=examples/tenancy

# Exit status by --fail-on: the example has critical findings.
rc=0; "$bin" audit tenancy "$ex/cluster" --json >"$tmp/findings.json" || rc=$?
[ "$rc" = 1 ] || { echo "default --fail-on critical: exit $rc, want 1"; exit 1; }
rc=0; "$bin" audit tenancy "$ex/cluster" --sarif --fail-on never >"$tmp/findings.sarif" || rc=$?
[ "$rc" = 0 ] || { echo "--fail-on never: exit $rc, want 0"; exit 1; }
rc=0; "$bin" audit tenancy "$ex/cluster" --fail-on warning >"$tmp/table.txt" || rc=$?
[ "$rc" = 1 ] || { echo "--fail-on warning: exit $rc, want 1"; exit 1; }
"$bin" audit tenancy --list-checks >"$tmp/checks.tsv"

# Files one by one (and in another order) give the same findings as the directory.
"$bin" audit tenancy "$ex"/cluster/pods.yaml "$ex"/cluster/*.json "$ex"/cluster/[a-o]*.yaml \
  "$ex"/cluster/[q-z]*.yaml --json --fail-on never >"$tmp/by_file.json"

# A set with only warnings passes --fail-on critical and fails --fail-on warning.
cat >"$tmp/warn.yaml" <<'YAML'
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a, labels: {steward.io/tenant: a}}}
- apiVersion: v1
  kind: ResourceQuota
  metadata: {name: gpu, namespace: a}
  spec: {hard: {requests.nvidia.com/gpu: "4"}}
YAML
"$bin" audit tenancy "$tmp/warn.yaml" --json >"$tmp/warn.json"
rc=0; "$bin" audit tenancy "$tmp/warn.yaml" --fail-on warning >/dev/null || rc=$?
[ "$rc" = 1 ] || { echo "warnings only, --fail-on warning: exit $rc, want 1"; exit 1; }
# ... and with its default-deny policy it is clean.
cat >>"$tmp/warn.yaml" <<'YAML'
- apiVersion: networking.k8s.io/v1
  kind: NetworkPolicy
  metadata: {name: deny, namespace: a}
  spec: {podSelector: {}, policyTypes: [Ingress]}
YAML
"$bin" audit tenancy "$tmp/warn.yaml" --fail-on warning --json >"$tmp/clean.json"

# Bad input: exit 2, the message names file, line and field; never a crash.
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: many}}\n' >"$tmp/bad.yaml"
rc=0; "$bin" audit tenancy "$tmp/bad.yaml" 2>"$tmp/bad.err" || rc=$?
[ "$rc" = 2 ] || { echo "bad input: exit $rc, want 2"; cat "$tmp/bad.err"; exit 1; }
grep -q "bad.yaml:7:.*Pod a/p: spec.containers\[0\].resources.limits.nvidia.com/gpu" "$tmp/bad.err" \
  || { echo "bad input message:"; cat "$tmp/bad.err"; exit 1; }
printf '{"kind": "List", "items": [\n  {"kind": "Node", "metadata": {"name": "n"},}\n' >"$tmp/broken.json"
rc=0; "$bin" audit tenancy "$tmp/broken.json" 2>"$tmp/broken.err" || rc=$?
[ "$rc" = 2 ] && grep -q "broken.json:[0-9]*:[0-9]*:" "$tmp/broken.err" \
  || { echo "broken JSON: exit $rc"; cat "$tmp/broken.err"; exit 1; }
rc=0; "$bin" audit tenancy "$tmp/missing.yaml" 2>"$tmp/missing.err" || rc=$?
[ "$rc" = 2 ] && grep -q "missing.yaml" "$tmp/missing.err" || { echo "missing file: exit $rc"; exit 1; }
rc=0; "$bin" audit tenancy "$ex/cluster" --fail-on sometimes 2>/dev/null || rc=$?
[ "$rc" = 2 ] || { echo "bad --fail-on: exit $rc, want 2"; exit 1; }

/usr/bin/python3 - "$tmp" "$ex/planted.tsv" <<'PY'
import collections, json, sys
tmp, planted_path = sys.argv[1:]
planted = collections.Counter()
for line in open(planted_path):
    if line.strip() and not line.startswith("#"):
        cid, tenant, obj = line.rstrip("\n").split("\t")
        planted[(cid, tenant, obj)] += 1
checks = [l.split("\t") for l in open(f"{tmp}/checks.tsv").read().splitlines()]
check_ids = {c[0] for c in checks}
assert len(check_ids) == len(checks) >= 15, len(checks)
assert {c[1] for c in checks} == {"quota", "rbac", "network", "nodes", "sharing"}
assert {k[0] for k in planted} == check_ids, "the example plants every check once"

# JSON: exactly the planted findings, each with the documented fields.
j = json.load(open(f"{tmp}/findings.json"))
found = collections.Counter((f["id"], f["tenant"], f["objects"][0]) for f in j["findings"])
assert found == planted, (found - planted, planted - found)
for f in j["findings"]:
    for k in ("id", "layer", "severity", "tenant", "objects", "message", "fix"):
        assert k in f and f[k] != "" or k == "tenant", (k, f)
    assert f["layer"] == f["id"].split(".")[0] and f["severity"] in ("critical", "warning")
    for loc in f["locations"]:
        assert loc["file"].startswith("examples/tenancy/cluster/") and loc["line"] > 0, loc
assert j["summary"]["critical"] + j["summary"]["warning"] == len(j["findings"])
assert set(j["summary"]["tenants"]) == {"team-a", "team-b", "team-c", "team-d"}
assert j["summary"]["tenants"]["team-c"] == ["research"]  # via LocalQueue -> ClusterQueue team-c
by_file = json.load(open(f"{tmp}/by_file.json"))
assert by_file["findings"] == j["findings"]

# SARIF 2.1.0: one run, a rule per check, a result per finding pointing at its rule and file.
s = json.load(open(f"{tmp}/findings.sarif"))
assert s["version"] == "2.1.0" and "sarif" in s["$schema"]
assert len(s["runs"]) == 1
run = s["runs"][0]
rules = run["tool"]["driver"]["rules"]
assert {r["id"] for r in rules} == check_ids
assert len(run["results"]) == len(j["findings"])
for r in run["results"]:
    assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    assert r["level"] in ("error", "warning") and r["message"]["text"]
    loc = r["locations"][0]
    assert "physicalLocation" in loc or "logicalLocations" in loc
    if "physicalLocation" in loc:
        assert loc["physicalLocation"]["artifactLocation"]["uri"].startswith("examples/tenancy/")
        assert loc["physicalLocation"]["region"]["startLine"] > 0
levels = collections.Counter(r["level"] for r in run["results"])
assert levels["error"] == j["summary"]["critical"] and levels["warning"] == j["summary"]["warning"]

# The table names every finding.
table = open(f"{tmp}/table.txt").read()
for f in j["findings"]:
    assert f["id"] in table and f["objects"][0] in table, f["id"]

warn = json.load(open(f"{tmp}/warn.json"))
assert [f["id"] for f in warn["findings"]] == ["network.no-default-deny"], warn
assert json.load(open(f"{tmp}/clean.json"))["findings"] == []
print("audit tenancy e2e: ok,", len(j["findings"]), "findings,", len(check_ids), "checks")
PY
