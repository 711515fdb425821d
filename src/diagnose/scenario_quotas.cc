#include "diagnose/scenario_quotas.h"

#include "govern/policy_io.h"

namespace steward::diagnose {

void AddScenarioQuotas(const twin::Scenario& s, const std::vector<std::string>& policy_files,
                       Diagnosis& d) {
  std::vector<std::string> files = policy_files;
  if (files.empty())
    for (const auto& f : s.policies.governance) files.push_back(f.string());
  std::optional<govern::Policy> policy;
  if (!files.empty()) {
    Result<govern::Policy> p = govern::ImportPolicyFiles(files);
    if (!p.ok()) return;
    policy = std::move(p).value();
  }
  for (Diagnosis::QueueingTeam& row : d.queueing_by_team) {
    const int t = s.FindTeam(row.team);
    if (t < 0) continue;
    const twin::TeamSpec& team = s.teams[t];
    if (!policy) {  // fifo-quota: one queue per team, its quota_gpus.
      row.cluster_queue = team.name;
      row.quota_gpus = team.quota_gpus;
      continue;
    }
    // The twin's workloads name the LocalQueue after the team (GeneratorSpec::queue default).
    const std::string ns = team.namespace_name.empty() ? team.name : team.namespace_name;
    for (const govern::LocalQueue& lq : policy->local_queues) {
      if (lq.namespace_name != ns || lq.name != team.name) continue;
      const govern::ClusterQueue* cq = policy->FindClusterQueue(lq.cluster_queue);
      if (cq == nullptr) break;
      int64_t nominal = 0;
      for (const govern::ResourceGroup& g : cq->resource_groups)
        for (const govern::FlavorQuotas& f : g.flavors)
          for (const govern::ResourceQuota& q : f.resources)
            if (q.resource == "nvidia.com/gpu") nominal += q.nominal;
      row.cluster_queue = cq->name;
      row.quota_gpus = nominal;
      break;
    }
  }
}

}  // namespace steward::diagnose
