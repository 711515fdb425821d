// Nodes and pools layer: a tenant's dedicated GPU pool is its nodes labelled with the tenant
// label; it is only dedicated if a NoSchedule taint keeps the others out, and only if no other
// tenant's pods or ClusterQueue flavors tolerate that taint.
#include <fmt/format.h>

#include "audit/checks/checks.h"

namespace steward::audit::checks {

void GpuPoolUntainted(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  std::map<std::string, std::vector<const Node*>> untainted;  // Tenant -> nodes.
  for (const Node& n : c.objects.nodes) {
    const std::string& tenant = c.tenants.OfNode(n.meta.ref.name);
    if (!tenant.empty() && IsGpuNode(n) && !HasHardTaint(n)) untainted[tenant].push_back(&n);
  }
  const std::string& label = c.tenants.label();
  for (const auto& [tenant, nodes] : untainted) {
    std::vector<ObjectRef> refs;
    std::vector<std::string> names;
    for (const Node* n : nodes) {
      refs.push_back(n->meta.ref);
      names.push_back(n->meta.ref.name);
    }
    out->push_back(check.Make(
        tenant, refs,
        fmt::format("{} GPU node(s) of tenant {}'s dedicated pool ({}={}) have no NoSchedule "
                    "taint: any tenant's pods can land there ({})",
                    nodes.size(), tenant, label, tenant, JoinFew(names)),
        fmt::format("kubectl taint nodes -l {}={} {}={}:NoSchedule   # and give the tenant's "
                    "pods (or its ResourceFlavor) the matching toleration",
                    label, tenant, label, tenant)));
  }
}

void TolerationCrossesPool(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  // Tainted nodes of dedicated pools grouped by (owner, taints): a pod's tolerations are
  // matched once per group, not once per node.
  std::map<std::pair<std::string, std::string>, std::vector<const Node*>> groups;
  for (const Node& n : c.objects.nodes) {
    const std::string& owner = c.tenants.OfNode(n.meta.ref.name);
    if (owner.empty() || !HasHardTaint(n)) continue;
    std::string signature;
    for (const Taint& t : n.taints) signature += t.key + "=" + t.value + ":" + t.effect + ";";
    groups[{owner, signature}].push_back(&n);
  }
  for (const Pod& p : c.objects.pods) {
    const std::string& tenant = c.tenants.OfNamespace(p.meta.ref.namespace_name);
    if (tenant.empty() || p.tolerations.empty()) continue;
    std::map<std::string, std::vector<std::string>> reached;  // Other tenant -> nodes.
    for (const auto& [key, nodes] : groups) {
      if (key.first == tenant || !Admits(*nodes.front(), p.tolerations)) continue;
      for (const Node* n : nodes) {
        bool selected = true;  // nodeSelector may keep the pod off the pool anyway.
        for (const auto& [k, v] : p.node_selector) {
          auto it = n->meta.labels.find(k);
          selected &= it != n->meta.labels.end() && it->second == v;
        }
        if (selected) reached[key.first].push_back(n->meta.ref.name);
      }
    }
    for (const auto& [owner, nodes] : reached) {
      out->push_back(check.Make(
          tenant, {p.meta.ref},
          fmt::format("pod {}/{} of tenant {} tolerates the taints of tenant {}'s dedicated pool "
                      "and may be scheduled on {} node(s) ({})",
                      p.meta.ref.namespace_name, p.meta.ref.name, tenant, owner, nodes.size(),
                      JoinFew(nodes)),
          fmt::format("remove the broad toleration from the workload's pod template (an empty "
                      "key with operator Exists, or {}={}) and keep only {}={}:NoSchedule",
                      c.tenants.label(), owner, c.tenants.label(), tenant)));
    }
  }
}

void FlavorReachesOtherPool(const AuditContext& c, const Check& check, std::vector<Finding>* out) {
  const auto& policy = c.objects.policy;
  for (const govern::ClusterQueue& cq : policy.cluster_queues) {
    const std::set<std::string>& owners = c.tenants.OfClusterQueue(cq.name);
    if (owners.empty()) continue;
    std::set<std::string> flavors;
    for (const auto& g : cq.resource_groups)
      for (const auto& fq : g.flavors) flavors.insert(fq.flavor);
    for (const std::string& fname : flavors) {
      const govern::ResourceFlavor* f = policy.FindFlavor(fname);
      if (!f) continue;
      std::map<std::string, std::vector<std::string>> reached;
      for (const Node& n : c.objects.nodes) {
        const std::string& pool = c.tenants.OfNode(n.meta.ref.name);
        if (pool.empty() || owners.count(pool) || !IsGpuNode(n)) continue;
        bool match = true;
        for (const auto& [k, v] : f->node_labels) {
          auto it = n.meta.labels.find(k);
          match &= it != n.meta.labels.end() && it->second == v;
        }
        if (match && Admits(n, f->tolerations)) reached[pool].push_back(n.meta.ref.name);
      }
      for (const auto& [pool, nodes] : reached) {
        std::vector<std::string> labels;
        for (const auto& [k, v] : f->node_labels) labels.push_back(k + "=" + v);
        out->push_back(check.Make(
            Join({owners.begin(), owners.end()}, ","),
            {{"ClusterQueue", "", cq.name, cq.source.file, cq.source.line},
             {"ResourceFlavor", "", f->name, f->source.file, f->source.line}},
            fmt::format("ClusterQueue {} (tenant {}) admits onto ResourceFlavor {} whose node "
                        "labels [{}] reach {} node(s) of tenant {}'s dedicated pool ({})",
                        cq.name, Join({owners.begin(), owners.end()}, ","), f->name, Join(labels),
                        nodes.size(), pool, JoinFew(nodes)),
            fmt::format("kubectl patch resourceflavor {} --type merge -p "
                        "'{{\"spec\":{{\"nodeLabels\":{{\"{}\":\"{}\"}}}}}}'   # a flavor per "
                        "tenant pool",
                        f->name, c.tenants.label(), *owners.begin())));
      }
    }
  }
}

}  // namespace steward::audit::checks
