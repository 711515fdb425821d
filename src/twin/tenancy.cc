#include "twin/tenancy.h"

#include <fmt/format.h>

#include "audit/loader.h"
#include "govern/policy_io.h"
#include "model/text.h"

namespace steward::twin {
Result<audit::AuditResult> AuditScenarioTenancy(const Scenario& s, const model::Cluster& cluster,
                                                const govern::Policy& twin_policy) {
  audit::ObjectSet objects;
  std::vector<std::string> paths;
  for (const auto& f : s.tenancy.files) paths.push_back(f.string());
  auto context = [&](const Status& st) {
    return Status::InvalidArgument(
        fmt::format("{}:{}: tenancy: {}", s.source, s.tenancy.line, st.message()));
  };
  if (Status st = audit::LoadPaths(paths, &objects); !st.ok()) return context(st);
  if (objects.nodes.empty()) {
    // The twin's nodes as the API would list them: pool labels and taints, GPU capacity.
    for (const model::Node& n : cluster.nodes()) {
      audit::Node node;
      node.meta.ref = {"Node", "", n.name, s.source, 0};
      node.meta.labels = n.labels;
      for (const model::Taint& t : n.taints) node.taints.push_back({t.key, t.value, t.effect});
      node.gpu_capacity = n.gpu_capacity;
      objects.nodes.push_back(std::move(node));
    }
  }
  if (objects.policy.cluster_queues.empty()) {
    govern::Policy& p = objects.policy;
    p.flavors.insert(p.flavors.end(), twin_policy.flavors.begin(), twin_policy.flavors.end());
    p.cohorts.insert(p.cohorts.end(), twin_policy.cohorts.begin(), twin_policy.cohorts.end());
    p.cluster_queues = twin_policy.cluster_queues;
    p.local_queues.insert(p.local_queues.end(), twin_policy.local_queues.begin(),
                          twin_policy.local_queues.end());
    if (Status st = govern::ValidatePolicy(&p); !st.ok()) return context(st);
  }
  audit::AuditOptions options;
  options.tenant_label = s.tenancy.tenant_label;
  return audit::RunAudit(objects, options);
}

std::string TenancyText(const audit::AuditResult& r) {
  int critical = 0;
  for (const auto& f : r.findings) critical += f.severity == audit::Severity::kCritical;
  std::string out =
      fmt::format("\nTenant isolation ({} tenants, {} objects): {} findings, {} critical\n",
                  r.tenants.size(), r.objects, r.findings.size(), critical);
  for (const auto& f : r.findings)
    out += fmt::format("  {:<8} {:<34} {:<14} {}\n", audit::SeverityName(f.severity), f.id,
                       f.tenant.empty() ? "-" : f.tenant,
                       f.objects.empty() ? "-" : f.objects.front().Id());
  return out;
}

std::string TenancyHtml(const audit::AuditResult& r) {
  std::string h = fmt::format(
      "<h2>Tenant isolation ({} findings)</h2><table><tr><th>severity</th><th>layer</th>"
      "<th>check</th><th>tenant</th><th>object</th><th>finding</th></tr>",
      r.findings.size());
  for (const auto& f : r.findings)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                     audit::SeverityName(f.severity), audit::LayerName(f.layer),
                     model::HtmlEscape(f.id), model::HtmlEscape(f.tenant),
                     f.objects.empty() ? "" : model::HtmlEscape(f.objects.front().Id()),
                     model::HtmlEscape(f.message));
  return h + "</table>";
}

}  // namespace steward::twin
