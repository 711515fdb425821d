#!/usr/bin/python3
"""Writes a synthetic `kubectl get -A -o json` dump for timing `steward audit tenancy`.

    scripts/tenancy-synthetic-dump.py /tmp/big.json [NODES] [PODS] [TENANTS]

Every tenant has a labelled namespace with a GPU ResourceQuota and a default-deny policy and a
tainted dedicated pool; every tenth node is time-sliced; pods land on random nodes (seeded), so
time-sliced nodes end up shared across tenants (the only findings).
"""
import json
import random
import sys

out = sys.argv[1]
nodes, pods, tenants = (int(a) for a in (sys.argv[2:] + ["2000", "50000", "20"][len(sys.argv) - 2:]))
rng = random.Random(1)
items = []
for t in range(tenants):
    ns, label = f"ns-{t}", {"steward.io/tenant": f"t{t}"}
    items.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": label}})
    items.append({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "gpu", "namespace": ns},
                  "spec": {"hard": {"requests.nvidia.com/gpu": "64"}}})
    items.append({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                  "metadata": {"name": "deny", "namespace": ns},
                  "spec": {"podSelector": {}, "policyTypes": ["Ingress"]}})
for n in range(nodes):
    t = n % tenants
    items.append({"apiVersion": "v1", "kind": "Node",
                  "metadata": {"name": f"n{n}", "labels": {
                      "steward.io/tenant": f"t{t}",
                      "nvidia.com/gpu.sharing-strategy": "time-slicing" if n % 10 == 0 else "none"}},
                  "spec": {"taints": [{"key": "steward.io/tenant", "value": f"t{t}", "effect": "NoSchedule"}]},
                  "status": {"allocatable": {"nvidia.com/gpu": "8"}}})
for p in range(pods):
    t = p % tenants
    items.append({"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": f"p{p}", "namespace": f"ns-{t}", "labels": {"app": f"a{p % 50}"}},
                  "spec": {"nodeName": f"n{rng.randrange(nodes)}",
                           "tolerations": [{"key": "steward.io/tenant", "value": f"t{t}", "effect": "NoSchedule"},
                                           {"key": "nvidia.com/gpu", "operator": "Exists"}],
                           "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, open(out, "w"))
