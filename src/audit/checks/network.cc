// Network layer: default-deny per tenant namespace, policies that select nothing, rules that
// let another tenant's namespaces in (or out to them).
#include <fmt/format.h>

#include <algorithm>

#include "audit/checks/checks.h"

namespace steward::audit::checks {
namespace {

bool SelectsAll(const govern::LabelSelector& s) {
  return s.match_labels.empty() && s.match_expressions.empty();
}

// Tenants other than `own` whose namespaces a rule's peers reach (an empty peer list reaches
// everyone).
std::set<std::string> OtherTenantsReached(const AuditContext& c, const NetworkRule& rule,
                                          const std::string& own) {
  std::set<std::string> out;
  for (const auto& [tenant, namespaces] : c.tenants.namespaces()) {
    if (tenant == own) continue;
    for (const std::string& ns : namespaces) {
      if (rule.peers.empty()) {
        out.insert(tenant);
        continue;
      }
      const Labels labels = NamespaceLabels(c.objects, ns);
      for (const NetworkPeer& p : rule.peers)
        if (p.namespace_selector && p.namespace_selector->Matches(labels)) out.insert(tenant);
    }
  }
  return out;
}

}  // namespace

void NoDefaultDeny(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  for (const auto& [tenant, namespaces] : c.tenants.namespaces()) {
    for (const std::string& ns : namespaces) {
      bool deny = false;
      for (const NetworkPolicy& p : c.objects.network_policies)
        deny |= p.meta.ref.namespace_name == ns && SelectsAll(p.pod_selector) && p.ingress_type &&
                p.ingress.empty();
      if (deny) continue;
      ObjectRef ref{"Namespace", "", ns, "", 0};
      for (const Namespace& n : c.objects.namespaces)
        if (n.meta.ref.name == ns) ref = n.meta.ref;
      out->push_back(check.Make(
          tenant, {ref},
          fmt::format("namespace {} of tenant {} has no default-deny ingress NetworkPolicy "
                      "(podSelector {{}}, policyTypes [Ingress], no rules): every pod accepts "
                      "traffic from every namespace",
                      ns, tenant),
          fmt::format("kubectl apply -f - <<EOF\napiVersion: networking.k8s.io/v1\nkind: "
                      "NetworkPolicy\nmetadata: {{name: default-deny-ingress, namespace: {}}}\n"
                      "spec: {{podSelector: {{}}, policyTypes: [Ingress]}}\nEOF",
                      ns)));
    }
  }
}

void DanglingPolicy(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  if (c.objects.pods.empty()) return;  // No pods in the input: cannot tell.
  std::map<std::string, std::vector<const Pod*>> in_namespace;
  for (const Pod& pod : c.objects.pods) in_namespace[pod.meta.ref.namespace_name].push_back(&pod);
  for (const NetworkPolicy& p : c.objects.network_policies) {
    if (SelectsAll(p.pod_selector)) continue;
    bool any = false;
    for (const Pod* pod : in_namespace[p.meta.ref.namespace_name])
      any |= p.pod_selector.Matches(pod->meta.labels);
    if (any) continue;
    std::vector<std::string> sel;
    for (const auto& [k, v] : p.pod_selector.match_labels) sel.push_back(k + "=" + v);
    for (const auto& e : p.pod_selector.match_expressions) sel.push_back(e.key + " " + e.op);
    const std::string& ns = p.meta.ref.namespace_name;
    out->push_back(check.Make(
        c.tenants.OfNamespace(ns), {p.meta.ref},
        fmt::format("NetworkPolicy {}/{} selects pods with {} but no pod of namespace {} "
                    "matches: it protects nothing (a typo or a renamed label?)",
                    ns, p.meta.ref.name, Join(sel), ns),
        fmt::format("kubectl -n {} edit networkpolicy {}   # fix spec.podSelector to match the "
                    "workload's labels, or delete the policy",
                    ns, p.meta.ref.name)));
  }
}

void CrossTenantAllowed(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  const std::string& label = c.tenants.label();
  for (const NetworkPolicy& p : c.objects.network_policies) {
    const std::string& ns = p.meta.ref.namespace_name;
    const std::string& tenant = c.tenants.OfNamespace(ns);
    if (tenant.empty()) continue;
    std::set<std::string> reached;
    std::vector<std::string> where;
    for (size_t i = 0; i < p.ingress.size(); ++i)
      for (const auto& t : OtherTenantsReached(c, p.ingress[i], tenant)) {
        reached.insert(t);
        where.push_back(fmt::format("ingress[{}]", i));
      }
    for (size_t i = 0; i < p.egress.size(); ++i)
      for (const auto& t : OtherTenantsReached(c, p.egress[i], tenant)) {
        reached.insert(t);
        where.push_back(fmt::format("egress[{}]", i));
      }
    if (reached.empty()) continue;
    std::sort(where.begin(), where.end());
    where.erase(std::unique(where.begin(), where.end()), where.end());
    out->push_back(check.Make(
        tenant, {p.meta.ref},
        fmt::format("NetworkPolicy {}/{} of tenant {} allows traffic with namespaces of tenant(s) "
                    "{} (spec.{})",
                    ns, p.meta.ref.name, tenant, Join({reached.begin(), reached.end()}),
                    Join(where, ", spec.")),
        fmt::format("kubectl -n {} edit networkpolicy {}   # restrict each peer to the tenant: "
                    "namespaceSelector: {{matchLabels: {{{}: {}}}}}",
                    ns, p.meta.ref.name, label, tenant)));
  }
}

}  // namespace steward::audit::checks
