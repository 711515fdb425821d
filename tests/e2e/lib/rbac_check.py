#!/usr/bin/python3
"""Judges logged Kubernetes API requests against RBAC manifests, as the API server's RBAC
authorizer would (not a test by itself; tests/e2e/deploy_rbac.sh runs it).

  rbac_check.py --manifests deploy/rbac-apply.yaml --subject steward-system/steward \
      --requests apply.jsonl [--requests more.jsonl] --user-agent steward-live \
      [--not-exercised 'update leases.coordination.k8s.io: reason'] [--expect-denied]

Requests are audit.k8s.io/v1 Event lines (`steward serve --kube-request-log`). Checks:
  1. every request of the user agent is allowed by the rules bound to the service account
     (or, with --expect-denied, at least one is denied: the role is too small for them);
  2. every rule's verb x resource is used by some allowed request, or is listed with
     --not-exercised and a reason; a listed one that is used after all is an error too.
RBAC as kube-apiserver applies it: ClusterRoleBindings grant everywhere, RoleBindings in
their namespace only; verbs, apiGroups and resources match exactly or by "*", "pods/eviction"
names a subresource, "*/SUB" any resource's SUB; resourceNames restrict to named requests.
Non-resource requests (discovery) are judged by the built-in system:discovery role, which
every authenticated user has.
"""
import argparse
import json
import sys

import yaml

# kube-apiserver's bootstrap ClusterRole system:discovery, bound to system:authenticated.
DISCOVERY = {"verbs": ["get"], "nonResourceURLs": [
    "/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*",
    "/api", "/api/*", "/apis", "/apis/*"]}


def load(paths):
    docs = []
    for p in paths:
        with open(p) as f:
            docs += [d for d in yaml.safe_load_all(f) if d]
    return docs


def grants(docs, subject_ns, subject_name):
    """(rule, namespace or None for cluster-wide) for every rule bound to the subject."""
    roles = {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d
             for d in docs if d["kind"] in ("ClusterRole", "Role")}
    out = []
    for b in docs:
        if b["kind"] not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        if not any(s.get("kind") == "ServiceAccount" and s.get("name") == subject_name and
                   s.get("namespace", b["metadata"].get("namespace")) == subject_ns
                   for s in b.get("subjects", [])):
            continue
        ref = b["roleRef"]
        ns = b["metadata"].get("namespace") if b["kind"] == "RoleBinding" else None
        key = (ref["kind"], None if ref["kind"] == "ClusterRole" else ns, ref["name"])
        if key not in roles:
            sys.exit(f"{b['kind']} {b['metadata']['name']} refers to a missing {key}")
        for rule in roles[key].get("rules", []):
            out.append((rule, ns))
    return out


def request_attrs(event):
    ref = event.get("objectRef")
    if ref is None:
        return {"resource_request": False, "verb": event["verb"],
                "path": event["requestURI"].split("?")[0]}
    return {"resource_request": True, "verb": event["verb"], "group": ref.get("apiGroup", ""),
            "resource": ref["resource"], "subresource": ref.get("subresource", ""),
            "namespace": ref.get("namespace", ""), "name": ref.get("name", "")}


def rule_allows(rule, scope_ns, a):
    if not a["resource_request"]:
        if scope_ns is not None or "nonResourceURLs" not in rule:
            return False
        return any(v in ("*", a["verb"]) for v in rule["verbs"]) and any(
            u == a["path"] or u == "*" or (u.endswith("*") and a["path"].startswith(u[:-1]))
            for u in rule["nonResourceURLs"])
    if scope_ns is not None and a["namespace"] != scope_ns:
        return False
    if not any(v in ("*", a["verb"]) for v in rule.get("verbs", [])):
        return False
    if not any(g in ("*", a["group"]) for g in rule.get("apiGroups", [])):
        return False
    combined = a["resource"] + ("/" + a["subresource"] if a["subresource"] else "")
    if not any(r in ("*", combined) or
               (a["subresource"] and r == "*/" + a["subresource"])
               for r in rule.get("resources", [])):
        return False
    names = rule.get("resourceNames") or []
    return not names or a["name"] in names


def rule_keys(rule):
    """'VERB RESOURCE[.GROUP]' for each verb x resource of a resource rule."""
    for g in rule.get("apiGroups", []):
        for r in rule.get("resources", []):
            for v in rule.get("verbs", []):
                yield f"{v} {r}{'.' + g if g else ''}"


def describe(a):
    if not a["resource_request"]:
        return f"{a['verb']} {a['path']}"
    res = a["resource"] + ("/" + a["subresource"] if a["subresource"] else "")
    where = f" in {a['namespace']}" if a["namespace"] else ""
    return f"{a['verb']} {res}{'.' + a['group'] if a['group'] else ''}" \
           f"{' ' + a['name'] if a['name'] else ''}{where}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifests", nargs="+", required=True)
    p.add_argument("--subject", required=True, help="NAMESPACE/SERVICEACCOUNT")
    p.add_argument("--requests", action="append", required=True)
    p.add_argument("--user-agent", default="steward-live")
    p.add_argument("--not-exercised", action="append", default=[],
                   help="'VERB RESOURCE[.GROUP]: reason'")
    p.add_argument("--expect-denied", action="store_true")
    args = p.parse_args()
    ns, name = args.subject.split("/")
    rules = grants(load(args.manifests), ns, name)
    if not rules:
        sys.exit(f"nothing in {args.manifests} is bound to {args.subject}")
    events = []
    for path in args.requests:
        with open(path) as f:
            events += [json.loads(line) for line in f if line.strip()]
    events = [e for e in events if e.get("userAgent", "").startswith(args.user_agent)]
    if not events:
        sys.exit(f"no request with user agent {args.user_agent} in {args.requests}")
    attrs = [request_attrs(e) for e in events]
    denied = sorted({describe(a) for a in attrs
                     if not any(rule_allows(r, s, a) for r, s in rules)
                     and not (not a["resource_request"] and rule_allows(DISCOVERY, None, a))})
    if args.expect_denied:
        if not denied:
            sys.exit(f"expected {args.manifests} to deny some of these requests; all allowed")
        print(f"denied as expected ({len(denied)}): " + "; ".join(denied))
        return
    errors = [f"denied: {d}" for d in denied]
    listed = {}
    for item in args.not_exercised:
        key, _, reason = item.partition(":")
        if not reason.strip():
            sys.exit(f"--not-exercised '{item}': give a reason after ':'")
        listed[key.strip()] = reason.strip()
    used, seen = set(), set()
    for rule, scope in rules:
        for key in rule_keys(rule):
            seen.add(key)
            verb, res = key.split(" ")
            sub_rule = dict(rule, verbs=[verb])
            if any(rule_allows(sub_rule, scope, a) and describe_matches(res, a) for a in attrs):
                used.add(key)
    for key in sorted(seen - used):
        if key not in listed:
            errors.append(f"granted but never used (remove it, or list it with a reason): {key}")
    for key in sorted(listed):
        if key in used:
            errors.append(f"listed as not exercised, but used: {key}")
        elif key not in seen:
            errors.append(f"listed as not exercised, but no rule grants it: {key}")
    kinds = sorted({describe(a) for a in attrs if a["resource_request"]})
    print(f"{len(events)} requests ({len(kinds)} distinct resource calls) against "
          f"{len(seen)} granted verb x resource: {len(used)} used, {len(listed)} listed")
    for k in kinds:
        print("  " + k)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)


def describe_matches(res, a):
    """Whether the rule entry `res` (RESOURCE[.GROUP], e.g. pods/eviction) names the request's
    resource itself (a rule listing several resources is used per resource)."""
    if not a["resource_request"]:
        return False
    r, _, g = res.partition(".")
    combined = a["resource"] + ("/" + a["subresource"] if a["subresource"] else "")
    return g == a["group"] and r in ("*", combined)


if __name__ == "__main__":
    main()
