#!/usr/bin/python3
"""The twin's Kubernetes API through Debian's python3-kubernetes client (run by kube_python.sh).

Against `steward serve examples/kube/rehearsal.yaml --kube-port 0 --kubeconfig-out F
--kube-watch-window W`, it checks with the client's own calls:
  - lists of nodes and pods (paged and not, per namespace, by field and label selector) equal
    what the twin's JSON API says at the same moment;
  - a continue token and a watch from a resourceVersion older than the window get 410 Expired;
  - an informer-style list + watch recovers from the 410 by re-listing, sees an eviction as
    MODIFIED (deletionTimestamp) then DELETED, in resourceVersion order, and its cache ends equal
    to a fresh list;
  - node patches (strategic merge, JSON patch with `test`, server dry run, a stale
    resourceVersion) change the twin's node, or do not, as they should;
  - evictions: one allowed by the service's PodDisruptionBudget (201), the next refused with 429
    and the budget's numbers while the first pod terminates.
Exits non-zero with a message on the first failed check.
"""
import argparse
import json
import sys
import time
import urllib.request

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

OPERATOR_NS = "gpu-operator"  # The GPU Operator's DaemonSet pods (one of each per node).
SERVICE = "chat-000000"  # The rehearsal's inference service: 2 replicas, maxUnavailable 1.


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def twin(base, path):
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return json.load(r)


def expect_api_error(status, call, *args, **kwargs):
    """Runs a client call that must fail with HTTP `status`; returns the Status body."""
    try:
        call(*args, **kwargs)
    except ApiException as e:
        check(e.status == status, f"{call.__name__}: expected {status}, got {e.status}: {e.body}")
        return json.loads(e.body) if e.body else {}
    raise AssertionError(f"{call.__name__}: expected {status}, got success")


def key(pod):
    return (pod.metadata.namespace, pod.metadata.name)


def raw_key(obj):
    return (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])


def wait_steady(base, v1, deadline_s=90):
    """Waits until no workload is starting and every API pod runs, and the API's pod count
    equals the twin's at one instant (two twin reads around one list agree)."""
    deadline = time.time() + deadline_s
    while time.time() < deadline:
        before = twin(base, "/api/workloads?limit=1000")
        pods = v1.list_pod_for_all_namespaces()
        after = twin(base, "/api/workloads?limit=1000")
        overview = twin(base, "/api/overview")
        if (before == after and overview["workloads_starting"] == 0
                and all(p.status.phase == "Running" for p in pods.items)):
            return after, pods
        time.sleep(0.5)
    raise AssertionError("the twin did not settle (pods still starting)")


def check_lists(base, v1, apps):
    nodes = v1.list_node()
    twin_nodes = twin(base, "/api/nodes?limit=1000")
    check(len(nodes.items) == twin_nodes["total"] == twin(base, "/api/overview")["nodes_total"],
          f"{len(nodes.items)} nodes in the API, twin has {twin_nodes['total']}")
    check(sorted(n.metadata.name for n in nodes.items) ==
          sorted(n["name"] for n in twin_nodes["nodes"]), "node names differ from the twin's")
    for n in nodes.items:
        gpus = next(x for x in twin_nodes["nodes"] if x["name"] == n.metadata.name)["gpus_total"]
        check(n.status.allocatable.get("nvidia.com/gpu") == str(gpus),
              f"{n.metadata.name}: allocatable nvidia.com/gpu {n.status.allocatable} != {gpus}")

    workloads, pods = wait_steady(base, v1)
    running = [w for w in workloads["workloads"] if w["state"] in ("running", "starting")]
    gpu_pods = [p for p in pods.items if p.metadata.namespace != OPERATOR_NS]
    check(len(gpu_pods) == sum(w["pods"] for w in running),
          f"{len(gpu_pods)} GPU pods in the API, the twin runs {sum(w['pods'] for w in running)}")
    # One namespace per team, with that team's pods.
    namespaces = {ns.metadata.name for ns in v1.list_namespace().items}
    for team in {w["team"] for w in workloads["workloads"]}:
        check(team in namespaces, f"team {team} has no namespace")
        want = sum(w["pods"] for w in running if w["team"] == team)
        got = len(v1.list_namespaced_pod(team).items)
        check(got == want, f"namespace {team}: {got} pods, the twin runs {want}")
    # The operator's pods: as many as its DaemonSets schedule.
    daemonsets = apps.list_namespaced_daemon_set(OPERATOR_NS).items
    check(daemonsets, "no GPU Operator DaemonSets")
    scheduled = sum(ds.status.desired_number_scheduled for ds in daemonsets)
    operator_pods = len(v1.list_namespaced_pod(OPERATOR_NS).items)
    check(operator_pods == scheduled,
          f"{operator_pods} operator pods, DaemonSets schedule {scheduled}")
    # Pods by node (what kubectl drain lists) are the workloads the twin placed there.
    for n in twin_nodes["nodes"]:
        on_node = v1.list_pod_for_all_namespaces(field_selector=f"spec.nodeName={n['name']}")
        names = {p.metadata.labels.get("steward.io/workload") for p in on_node.items
                 if p.metadata.namespace != OPERATOR_NS}
        want = set(twin(base, f"/api/nodes/{n['name']}")["workloads"])
        check(names == want, f"{n['name']}: pods of {names}, the twin placed {want}")
    # A label selector, and paging: every page at the list's resourceVersion, nothing lost.
    chat = v1.list_pod_for_all_namespaces(label_selector=f"steward.io/workload={SERVICE}")
    check(len(chat.items) == 2, f"{len(chat.items)} pods of {SERVICE}, want its 2 replicas")
    paged, token, rvs = [], None, set()
    while True:
        page = v1.list_pod_for_all_namespaces(limit=7, _continue=token)
        paged += page.items
        rvs.add(page.metadata.resource_version)
        token = page.metadata._continue
        if not token:
            break
    check(len(rvs) == 1, f"pages at different resourceVersions {rvs}")
    full = v1.list_pod_for_all_namespaces(resource_version=rvs.pop(),
                                          resource_version_match="Exact")
    check(sorted(map(key, paged)) == sorted(map(key, full.items)),
          "paged list differs from the list at its resourceVersion")
    print(f"lists: {len(nodes.items)} nodes, {len(pods.items)} pods "
          f"({len(gpu_pods)} GPU pods, {operator_pods} operator pods) match the twin")


class Informer:
    """A pod cache kept by list + watch, as client-go's reflector keeps one: a 410 on the
    watch means re-list and watch on from the new list."""

    def __init__(self, v1):
        self.v1 = v1
        self.cache = {}  # (namespace, name) -> phase.
        self.rv = None
        self.relists = 0
        self.bookmarks = 0
        self.events = []  # (type, key, object) as received.

    def relist(self):
        pods = self.v1.list_pod_for_all_namespaces()
        self.cache = {key(p): p.status.phase for p in pods.items}
        self.rv = pods.metadata.resource_version
        self.relists += 1

    def watch_until(self, done, deadline_s=90, max_events=500):
        """Watches from self.rv until done(self) or a bound; returns the 410s met."""
        gone = 0
        deadline = time.time() + deadline_s
        while not done(self):
            check(time.time() < deadline, f"watch: condition not met in {deadline_s}s")
            check(len(self.events) < max_events, f"watch: condition not met in {max_events} events")
            last = int(self.rv)
            try:
                for e in watch.Watch().stream(self.v1.list_pod_for_all_namespaces,
                                              resource_version=self.rv, timeout_seconds=3,
                                              allow_watch_bookmarks=True):
                    obj = e["raw_object"]
                    rv = int(obj["metadata"]["resourceVersion"])
                    # A change has a new version; a bookmark may repeat the last one.
                    newer = rv >= last if e["type"] == "BOOKMARK" else rv > last
                    check(newer, f"{e['type']} at resourceVersion {rv} after {last}")
                    last = rv
                    self.rv = str(rv)
                    if e["type"] == "BOOKMARK":
                        self.bookmarks += 1
                        continue
                    k = raw_key(obj)
                    self.events.append((e["type"], k, obj))
                    if e["type"] == "DELETED":
                        self.cache.pop(k, None)
                    else:
                        self.cache[k] = obj.get("status", {}).get("phase")
                    if done(self) or len(self.events) >= max_events:
                        break
            except ApiException as ex:
                check(ex.status == 410, f"watch failed with {ex.status}: {ex.reason}")
                gone += 1
                self.relist()
        return gone

    def check_equals_server(self):
        """The cache equals the server's list at the cache's version (catching up first when
        the list is newer)."""
        pods = self.v1.list_pod_for_all_namespaces()
        target = int(pods.metadata.resource_version)
        if int(self.rv) < target:
            self.watch_until(lambda s: int(s.rv) >= target, deadline_s=30)
        pods = self.v1.list_pod_for_all_namespaces(resource_version=self.rv,
                                                   resource_version_match="Exact")
        check(set(self.cache) == set(map(key, pods.items)),
              f"informer cache differs from the list at {self.rv}: "
              f"{set(self.cache) ^ set(map(key, pods.items))}")


def check_expired(v1, window):
    """A continue token and a watch from a resourceVersion older than the window: 410."""
    page = v1.list_pod_for_all_namespaces(limit=5)
    check(page.metadata._continue, "a 5-item page of all pods has no continue token")
    old = page.metadata.resource_version
    # A change after `old`, then wait past the window: the history no longer reaches `old`.
    node = v1.list_node().items[0].metadata.name
    v1.patch_node(node, {"metadata": {"annotations": {"steward.io/e2e-mark": str(time.time())}}})
    time.sleep(window + 1.5)
    body = expect_api_error(410, v1.list_pod_for_all_namespaces, limit=5,
                            _continue=page.metadata._continue)
    check(body.get("reason") == "Expired", f"expired continue: reason {body.get('reason')}")
    try:
        for e in watch.Watch().stream(v1.list_pod_for_all_namespaces, resource_version=old,
                                      timeout_seconds=5):
            raise AssertionError(f"watch from expired {old} sent {e['type']}")
    except ApiException as ex:
        check(ex.status == 410, f"watch from expired {old}: {ex.status} {ex.reason}")
    print(f"410: continue token and watch from resourceVersion {old} expired after {window}s")
    return old


def check_node_patches(base, v1):
    twin_nodes = twin(base, "/api/nodes?limit=1000")["nodes"]
    idle = [n for n in twin_nodes if not n["cordoned"] and n["gpus_idle"] == n["gpus_total"]]
    check(idle, "no idle node to cordon")
    name = idle[-1]["name"]
    before = v1.read_node(name)

    # Server dry run: answered as applied, nothing applied.
    dry = v1.patch_node(name, {"spec": {"unschedulable": True}}, dry_run="All")
    check(dry.spec.unschedulable is True, "dry-run cordon does not answer the cordoned node")
    check(not twin(base, f"/api/nodes/{name}")["cordoned"], "dry-run cordon cordoned the twin")
    check(not v1.read_node(name).spec.unschedulable, "dry-run cordon was stored")

    # Cordon and label (a dict body: the client sends a strategic merge patch).
    node = v1.patch_node(name, {"spec": {"unschedulable": True},
                                "metadata": {"labels": {"steward.io/e2e": "python"}}})
    check(node.spec.unschedulable is True, "patched node is not unschedulable")
    check(node.metadata.labels.get("steward.io/e2e") == "python", "label not applied")
    check(int(node.metadata.resource_version) > int(before.metadata.resource_version),
          "a patch did not get a new resourceVersion")
    t = twin(base, f"/api/nodes/{name}")
    check(t["cordoned"] and not t["schedulable"], f"twin node {name} not cordoned: {t}")
    check(v1.read_node(name).metadata.labels.get("steward.io/e2e") == "python",
          "label not kept by the twin")
    # Listed by the field selector kubectl's users use for cordoned nodes.
    cordoned = v1.list_node(field_selector="spec.unschedulable=true").items
    check(name in {n.metadata.name for n in cordoned}, "cordoned node not selected")

    # JSON patch (a list body) with a `test` op: applied when the test holds, 422 when not.
    node = v1.patch_node(name, [
        {"op": "test", "path": "/spec/unschedulable", "value": True},
        {"op": "replace", "path": "/metadata/labels/steward.io~1e2e", "value": "patched"}])
    check(node.metadata.labels.get("steward.io/e2e") == "patched", "JSON patch not applied")
    expect_api_error(422, v1.patch_node, name, [
        {"op": "test", "path": "/metadata/labels/steward.io~1e2e", "value": "python"},
        {"op": "remove", "path": "/metadata/labels/steward.io~1e2e"}])
    check(v1.read_node(name).metadata.labels.get("steward.io/e2e") == "patched",
          "a JSON patch whose test failed changed the node")
    # A patch carrying a stale resourceVersion is a precondition: 409.
    body = expect_api_error(409, v1.patch_node, name, {
        "metadata": {"resourceVersion": before.metadata.resource_version,
                     "labels": {"steward.io/e2e": "stale"}}})
    check(body.get("reason") == "Conflict", f"stale patch: reason {body.get('reason')}")
    # A field the twin's nodes do not take: 422 naming it.
    body = expect_api_error(422, v1.patch_node, name, {"spec": {"podCIDR": "10.0.0.0/24"}})
    check("podCIDR" in json.dumps(body), f"422 does not name the field: {body}")

    # Uncordon (what kubectl uncordon sends) and drop the label.
    node = v1.patch_node(name, {"spec": {"unschedulable": None},
                                "metadata": {"labels": {"steward.io/e2e": None}}})
    check(not node.spec.unschedulable and "steward.io/e2e" not in (node.metadata.labels or {}),
          "uncordon / label removal not applied")
    check(not twin(base, f"/api/nodes/{name}")["cordoned"], "twin node still cordoned")
    print(f"node patches on {name}: dry run, cordon+label, JSON patch (test), 409, 422, "
          "uncordon")


def check_evictions_and_watch(base, v1, policy, stale_rv):
    informer = Informer(v1)
    informer.rv = stale_rv
    # The stale version from check_expired: the first watch meets 410 and re-lists.
    gone = informer.watch_until(lambda s: s.relists > 0, deadline_s=30)
    check(gone >= 1 and informer.relists >= 1, "the watch from an expired version did not 410")
    informer.check_equals_server()

    pdb = policy.read_namespaced_pod_disruption_budget(SERVICE, "serving")
    check(pdb.status.disruptions_allowed == 1, f"budget allows {pdb.status.disruptions_allowed}")
    interruptions = twin(base, f"/api/workloads/{SERVICE}")["interruptions"]
    replicas = v1.list_namespaced_pod("serving", label_selector=f"steward.io/workload={SERVICE}")
    first, second = sorted(p.metadata.name for p in replicas.items)

    # Allowed: the budget has one disruption left. A long grace keeps the pod terminating (600
    # simulated seconds = 10 s at --speed 60), so the budget is 0 for the second eviction.
    def eviction(name, **delete_options):
        return client.V1Eviction(
            metadata=client.V1ObjectMeta(name=name, namespace="serving"),
            delete_options=client.V1DeleteOptions(**delete_options) if delete_options else None)

    v1.create_namespaced_pod_eviction(first, "serving", eviction(first, grace_period_seconds=600))
    terminating = v1.read_namespaced_pod(first, "serving")
    check(terminating.metadata.deletion_timestamp is not None, "evicted pod not terminating")
    pdb = policy.read_namespaced_pod_disruption_budget(SERVICE, "serving")
    check(pdb.status.disruptions_allowed == 0, "budget not used up by the eviction")
    # Refused: 429 with the budget's numbers; the pod stays.
    body = expect_api_error(429, v1.create_namespaced_pod_eviction, second, "serving",
                            eviction(second))
    causes = body.get("details", {}).get("causes", [])
    check(body.get("reason") == "TooManyRequests", f"429 reason {body.get('reason')}")
    check(any(c.get("reason") == "DisruptionBudget" and SERVICE in c.get("message", "")
              for c in causes), f"429 without the budget's cause: {body}")
    check(v1.read_namespaced_pod(second, "serving").metadata.deletion_timestamp is None,
          "the refused eviction touched the pod")
    # A dry-run eviction of the same pod meets the same budget.
    expect_api_error(429, v1.create_namespaced_pod_eviction, second, "serving",
                     client.V1Eviction(metadata=client.V1ObjectMeta(name=second,
                                                                    namespace="serving"),
                                       delete_options=client.V1DeleteOptions(dry_run=["All"])),
                     dry_run="All")

    # The watch sees the eviction through to the replacement replica running.
    def replaced(s):
        phases = [phase for k, phase in s.cache.items() if k[0] == "serving"]
        return ("serving", first) not in s.cache and phases == ["Running", "Running"]

    informer.watch_until(replaced, deadline_s=120)
    mine = [(t, o) for t, k, o in informer.events if k == ("serving", first)]
    check(mine and mine[-1][0] == "DELETED", f"no DELETED for {first}: {[t for t, _ in mine]}")
    if informer.relists == 1:  # Unless a slow client re-listed past it, the deletion was seen.
        check(any(t == "MODIFIED" and o["metadata"].get("deletionTimestamp") for t, o in mine),
              f"no MODIFIED with deletionTimestamp for {first}")
    informer.check_equals_server()
    after = twin(base, f"/api/workloads/{SERVICE}")
    check(after["interruptions"] == interruptions + 1,
          f"twin counted {after['interruptions'] - interruptions} interruptions of {SERVICE}")
    check(after["pods"] == 2 and after["state"] == "running", f"service not back: {after}")
    print(f"evictions: {first} evicted (201), {second} refused (429, budget 0); informer saw "
          f"{len(informer.events)} events and {informer.bookmarks} bookmarks over "
          f"{informer.relists} lists, cache = server")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--twin", required=True, help="base URL of the twin's JSON API")
    ap.add_argument("--watch-window", type=float, required=True,
                    help="serve's --kube-watch-window (seconds)")
    args = ap.parse_args()
    config.load_kube_config(config_file=args.kubeconfig)
    v1 = client.CoreV1Api()
    check(client.VersionApi().get_code().git_version, "no /version")
    check_lists(args.twin, v1, client.AppsV1Api())
    stale = check_expired(v1, args.watch_window)
    check_node_patches(args.twin, v1)
    check_evictions_and_watch(args.twin, v1, client.PolicyV1Api(), stale)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
