// Read-only quota queries (usage, available, max usable, statuses, shares) of GovernanceEngine
// (governance_engine.h), split from governance_engine.cc.
#include <algorithm>

#include "govern/governance_engine.h"

namespace steward::govern {

const AdmittedWorkload* GovernanceEngine::FindAdmitted(int64_t id) const {
  auto it = admitted_.find(id);
  return it == admitted_.end() ? nullptr : &it->second;
}

Amount GovernanceEngine::Usage(std::string_view cq, std::string_view flavor,
                               std::string_view resource) const {
  int q = FindClusterQueue(cq), f = FlavorIndex(flavor), r = ResourceIndex(resource);
  if (q < 0 || f < 0 || r < 0) return 0;
  return tree_.Usage(cqs_[q].node, Fr(f, r));
}

Amount GovernanceEngine::Available(std::string_view cq, std::string_view flavor,
                                   std::string_view resource) const {
  int q = FindClusterQueue(cq), f = FlavorIndex(flavor), r = ResourceIndex(resource);
  if (q < 0 || f < 0 || r < 0) return 0;
  return std::max<Amount>(0, tree_.Available(cqs_[q].node, Fr(f, r)));
}

Amount GovernanceEngine::MaxUsable(std::string_view cq, std::string_view flavor,
                                   std::string_view resource) const {
  int q = FindClusterQueue(cq), f = FlavorIndex(flavor), r = ResourceIndex(resource);
  if (q < 0 || f < 0 || r < 0) return 0;
  return tree_.PotentiallyAvailable(cqs_[q].node, Fr(f, r));
}

std::vector<QuotaStatus> GovernanceEngine::QuotaStatuses() const {
  std::vector<QuotaStatus> out;
  for (const auto& st : cqs_)
    for (const auto& g : st.spec.resource_groups)
      for (const auto& fq : g.flavors) {
        int f = FlavorIndex(fq.flavor);
        if (f < 0) continue;
        for (const auto& rq : fq.resources) {
          int fr = Fr(f, ResourceIndex(rq.resource));
          QuotaStatus s;
          s.cluster_queue = st.spec.name;
          s.cohort = st.spec.cohort;
          s.flavor = fq.flavor;
          s.resource = rq.resource;
          s.nominal = tree_.Nominal(st.node, fr);
          s.borrowing_limit = tree_.BorrowingLimit(st.node, fr);
          s.lending_limit = tree_.LendingLimit(st.node, fr);
          s.usage = tree_.Usage(st.node, fr);
          s.borrowed = std::max<Amount>(0, s.usage - s.nominal);
          s.available = std::max<Amount>(0, tree_.Available(st.node, fr));
          s.max_usable = tree_.PotentiallyAvailable(st.node, fr);
          out.push_back(std::move(s));
        }
      }
  return out;
}

double GovernanceEngine::DominantResourceShare(int cq) const {
  return tree_.DominantResourceShare(cqs_[cq].node, {});
}

bool GovernanceEngine::IsBorrowing(int cq) const {
  for (int fr = 0; fr < tree_.num_fr(); ++fr)
    if (tree_.Defines(cqs_[cq].node, fr) && tree_.Borrowing(cqs_[cq].node, fr)) return true;
  return false;
}

}  // namespace steward::govern
