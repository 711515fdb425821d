#!/usr/bin/env bash
# End-to-end (issue 22, item 3): `steward serve` on examples/scale-100k.yaml (102,400 GPUs,
# 12,800 nodes, 3,200 racks) with its Kubernetes API. A short horizon at a high speed-up: the
# twin runs live for about a second and stands still, so every list below reads one instant.
# Checks what breaks first at this size, never how long it takes:
#   - /metrics/dcgm is streamed (chunked, about 600 MB never held) and carries all 102,400 GPUs;
#   - the heatmap's /api/racks?nodes=false is one aggregate per rack that adds up to the overview;
#   - the Kubernetes API pages nodes and pods with continue tokens, each page within its limit,
#     and the pages together are exactly the unpaged list.
set -euo pipefail
bin=${1:?usage: serve_scale.sh STEWARD}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/lib/kube.sh"

start_kube_twin "$root/examples/scale-100k.yaml" --speed 3600 --days 0.05
finished() { curl -sf "$dash_url/api/overview" | grep -q '"finished":true'; }
wait_until 120 "the twin reaches its horizon" finished
curl -sf "$dash_url/api/overview" -o "$tmp/overview.json" || fail "GET /api/overview"
curl -sf "$dash_url/api/racks?nodes=false" -o "$tmp/racks.json" || fail "GET /api/racks?nodes=false"
/usr/bin/python3 - "$tmp/overview.json" "$tmp/racks.json" <<'PY' || fail "racks do not add up"
import json, sys
o, r = (json.load(open(p)) for p in sys.argv[1:])
assert o["gpus_total"] == 102400 and o["racks_total"] == 3200, o
racks = r["racks"]
assert len(racks) == 3200, len(racks)
assert all("nodes" not in x and x["gpus_total"] == 32 and x["nodes_total"] == 4 for x in racks)
for state in ["in_use", "idle", "faulty", "cordoned"]:
    assert sum(x["gpus_" + state] for x in racks) == o["gpus_" + state], state
assert o["gpus_in_use"] > 0, o["gpus_in_use"]
PY

# The dcgm page: streamed in chunks, one DCGM_FI_DEV_GPU_UTIL line per GPU, each GPU once.
curl -sf -D "$tmp/dcgm.headers" "$dash_url/metrics/dcgm" | grep '^DCGM_FI_DEV_GPU_UTIL{' |
  sed 's/.*UUID="\([^"]*\)".*/\1/' >"$tmp/uuids" || fail "GET /metrics/dcgm"
grep -qi '^transfer-encoding: chunked' "$tmp/dcgm.headers" ||
  fail "/metrics/dcgm is not streamed: $(cat "$tmp/dcgm.headers")"
[ "$(wc -l <"$tmp/uuids")" = 102400 ] || fail "$(wc -l <"$tmp/uuids") GPU_UTIL lines, want 102400"
[ "$(sort -u "$tmp/uuids" | wc -l)" = 102400 ] || fail "a GPU repeats on /metrics/dcgm"

# The Kubernetes API: every page of nodes and of pods, against the unpaged list.
/usr/bin/python3 - "$kube_url" <<'PY' || fail "paged lists"
import json, sys, urllib.parse, urllib.request
base = sys.argv[1]
# As Tables (kubectl's form, half the bytes of the objects): rows carry each object's metadata.
table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
def get(path):
    request = urllib.request.Request(base + path, headers={"Accept": table})
    return json.load(urllib.request.urlopen(request, timeout=60))
for kind, least in [("nodes", 12800), ("pods", 1000)]:
    key = lambda row: (row["object"]["metadata"].get("namespace", ""), row["object"]["metadata"]["name"])
    whole = [key(x) for x in get(f"/api/v1/{kind}")["rows"]]
    assert len(whole) >= least and len(set(whole)) == len(whole), (kind, len(whole))
    paged, token, pages, rv = [], "", 0, None
    while True:
        page = get(f"/api/v1/{kind}?limit=500" + ("&continue=" + urllib.parse.quote(token) if token else ""))
        meta = page["metadata"]
        rv = rv or meta["resourceVersion"]
        assert meta["resourceVersion"] == rv, (kind, "pages of one list read different versions")
        assert len(page["rows"]) <= 500, len(page["rows"])
        paged += [key(x) for x in page["rows"]]
        pages += 1
        token = meta.get("continue", "")
        if not token:
            break
        assert meta["remainingItemCount"] == len(whole) - len(paged), (kind, meta)
    assert paged == whole, (kind, len(paged), len(whole))
    assert pages == (len(whole) + 499) // 500, (kind, pages)
    print(f"{kind}: {len(whole)} in {pages} pages")
PY
[ "$(rows get nodes --chunk-size=500)" = 12800 ] || fail "kubectl get nodes --chunk-size=500"
echo "serve_scale: ok"
