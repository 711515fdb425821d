#include "twin/scenario_policy.h"

#include "govern/policy_io.h"

namespace steward::twin {

Result<govern::Policy> ScenarioPolicy(const Scenario& s) {
  if (!s.policies.governance.empty()) {
    std::vector<std::string> files;
    for (const auto& f : s.policies.governance) files.push_back(f.string());
    return govern::ImportPolicyFiles(files);
  }
  if (s.policies.admission != "fifo-quota")
    return Status::InvalidArgument(s.source + ": policies.admission '" + s.policies.admission +
                                   "' has no Kueue form");
  constexpr const char* kGpu = "nvidia.com/gpu";
  govern::Policy p;
  govern::ResourceFlavor flavor;
  flavor.name = "gpu";
  p.flavors.push_back(flavor);
  for (const TeamSpec& t : s.teams) {
    govern::ClusterQueue cq;
    cq.name = t.name;
    cq.queueing_strategy = govern::QueueingStrategy::kStrictFIFO;
    govern::LabelSelector only_team;
    only_team.match_labels["kubernetes.io/metadata.name"] = t.namespace_name;
    cq.namespace_selector = only_team;
    govern::ResourceGroup group;
    group.covered_resources = {kGpu};
    group.flavors.push_back({flavor.name, {{kGpu, t.quota_gpus, std::nullopt, std::nullopt}}});
    cq.resource_groups.push_back(std::move(group));
    p.cluster_queues.push_back(std::move(cq));
    govern::LocalQueue lq;
    lq.namespace_name = t.namespace_name;
    lq.name = t.name;
    lq.cluster_queue = t.name;
    p.local_queues.push_back(std::move(lq));
  }
  STEWARD_RETURN_IF_ERROR(govern::ValidatePolicy(&p));
  return p;
}

}  // namespace steward::twin
