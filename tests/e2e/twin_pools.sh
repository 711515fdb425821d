#!/usr/bin/env bash
# End-to-end: examples/pools (the guide's pool rules on the default cluster) against its naive
# twin, the per-pool report in JSON, text and HTML, determinism, and a bad pool rule's error.
set -euo pipefail
bin=${1:?usage: twin_pools.sh STEWARD}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" twin validate examples/pools/scenario.yaml >/dev/null
"$bin" twin validate examples/pools/naive.yaml >/dev/null
# The two files differ only in comments, the name and the policies block.
strip() { python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"(?ms)^policies:\n(?:  .*\n|\n)*", "", text)
lines = [l.split("#")[0].rstrip() for l in text.splitlines()]
print("\n".join(l for l in lines if l and not l.startswith("name:")))
PY
}
diff <(strip examples/pools/scenario.yaml) <(strip examples/pools/naive.yaml)

"$bin" twin run examples/pools/scenario.yaml --days 1 --json >"$tmp/pools.json"
"$bin" twin run examples/pools/scenario.yaml --days 1 --json >"$tmp/again.json"
cmp "$tmp/pools.json" "$tmp/again.json"  # Same scenario + seed: byte-identical.
"$bin" twin run examples/pools/naive.yaml --days 1 --json >"$tmp/naive.json"
"$bin" twin run examples/pools/scenario.yaml --days 1 --html "$tmp/r.html" >"$tmp/r.txt"
python3 - "$tmp/pools.json" "$tmp/naive.json" <<'PY'
import json, sys
p, n = (json.load(open(f)) for f in sys.argv[1:])
assert p["policies"]["placement"] == "pools(whole-node=binpack, small=binpack, general=binpack)"
assert [(x["name"], x["nodes"], x["gpus"]) for x in p["pools"]] == [
    ("whole-node", 832, 6656), ("small", 192, 1536), ("general", 256, 2048)], p["pools"]
assert [x["name"] for x in n["pools"]] == ["default"] and n["pools"][0]["nodes"] == 1280
for j in (p, n):
    for k in ("fragmentation", "pending_by_reason", "queue_wait_seconds", "series", "defrag",
              "queue_wait_seconds_by_pod_size"):
        assert k in j, k
    point = j["series"][-1]
    assert set(point["pools"]) == {x["name"] for x in j["pools"]}
    for v in point["pools"].values():
        assert 0 <= v["largest_single_node_job_gpus"] <= 8
        assert v["largest_gang_job_gpus"] >= v["largest_single_node_job_gpus"]
    # Per-pool free GPUs add up to the cluster's.
    assert sum(x["free_gpus"] for x in j["pools"]) == j["fragmentation"]["free_gpus"]
    assert sum(x["stranded_free_gpus"] for x in j["pools"]) == j["fragmentation"]["stranded_free_gpus"]
assert p["defrag"]["enabled"] and not n["defrag"]["enabled"]
assert n["defrag"]["victims"] == 0
# Whole-node pool: only 8-GPU pods, so nothing is ever stranded there.
assert all(pt["pools"]["whole-node"]["stranded_free_gpus"] == 0 for pt in p["series"])
PY
grep -q "Placement pools" "$tmp/r.txt"
grep -q "whole-node" "$tmp/r.txt"
grep -q "Largest placeable one-node job by placement pool" "$tmp/r.html"
grep -q "<h2>Placement pools (end of run)</h2>" "$tmp/r.html"

# A pool rule that leaves nodes out names the file, line and field.
sed 's/    - name: general          # the rest of the nodes/    - name: general\n      nodes: 10/' \
  examples/pools/scenario.yaml >"$tmp/bad.yaml"
if "$bin" twin validate "$tmp/bad.yaml" >"$tmp/err" 2>&1; then exit 1; fi
grep -q "bad.yaml:[0-9]*:[0-9]*: policies.pools: 246 nodes are in no placement pool" "$tmp/err" \
  || { cat "$tmp/err"; exit 1; }
echo "twin_pools: ok"
