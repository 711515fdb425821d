// What a scheduling cycle needs beyond TryAdmit (policy simulate's in-cycle checks and
// reservations: FitsWithout, AddAssignmentUsage, shares with a decision added) of GovernanceEngine
// (governance_engine.h), split from governance_engine.cc.
#include <algorithm>

#include "govern/governance_engine.h"

namespace steward::govern {

std::vector<std::pair<int, Amount>> GovernanceEngine::DecisionUsage(
    const Decision& decision) const {
  std::vector<std::pair<int, Amount>> out;
  for (const auto& a : decision.assignments) {
    int f = FlavorIndex(a.flavor), r = ResourceIndex(a.resource);
    out.emplace_back(f < 0 || r < 0 ? -1 : Fr(f, r), a.amount);
  }
  return out;
}

bool GovernanceEngine::FitsWithout(const Decision& decision,
                                   const std::vector<int64_t>& removed) const {
  const int cq = decision.cluster_queue_index;
  if (cq < 0) return false;
  std::vector<const AdmittedWorkload*> gone;
  for (int64_t id : removed) {
    auto it = admitted_.find(id);
    if (it == admitted_.end()) continue;
    ApplyUsage(it->second, -1);
    gone.push_back(&it->second);
  }
  std::vector<Amount> total(tree_.num_fr(), 0);
  bool known = true;
  for (const auto& [fr, a] : DecisionUsage(decision)) {
    if (fr < 0)
      known = false;
    else
      total[fr] += a;
  }
  bool fits = known;
  for (int fr = 0; fits && fr < tree_.num_fr(); ++fr)
    if (total[fr] > 0 && tree_.Available(cqs_[cq].node, fr) < total[fr]) fits = false;
  for (const auto* w : gone) ApplyUsage(*w, +1);
  return fits;
}

void GovernanceEngine::AddAssignmentUsage(const Decision& decision,
                                          const std::vector<Amount>& amounts) {
  const int cq = decision.cluster_queue_index;
  if (cq < 0) return;
  auto usage = DecisionUsage(decision);
  for (size_t i = 0; i < usage.size() && i < amounts.size(); ++i)
    if (usage[i].first >= 0 && amounts[i] != 0)
      tree_.AddUsage(cqs_[cq].node, usage[i].first, amounts[i]);
}

double GovernanceEngine::DominantResourceShareWith(const Decision& decision, bool weighted) const {
  const int cq = decision.cluster_queue_index;
  if (cq < 0) return 0;
  std::vector<Amount> extra(tree_.num_fr(), 0);
  for (const auto& [fr, a] : DecisionUsage(decision))
    if (fr >= 0) extra[fr] += a;
  return tree_.DominantResourceShare(cqs_[cq].node, extra, weighted);
}

std::vector<QuotaTree::PathShare> GovernanceEngine::FairSharingPath(
    const Decision& decision) const {
  const int cq = decision.cluster_queue_index;
  if (cq < 0) return {};
  std::vector<Amount> extra(tree_.num_fr(), 0);
  for (const auto& [fr, a] : DecisionUsage(decision))
    if (fr >= 0) extra[fr] += a;
  return tree_.PathShares(cqs_[cq].node, extra);
}

Amount GovernanceEngine::Nominal(std::string_view cq, std::string_view flavor,
                                 std::string_view resource) const {
  int q = FindClusterQueue(cq), f = FlavorIndex(flavor), r = ResourceIndex(resource);
  if (q < 0 || f < 0 || r < 0) return 0;
  return tree_.Nominal(cqs_[q].node, Fr(f, r));
}

Amount GovernanceEngine::BorrowingLimit(std::string_view cq, std::string_view flavor,
                                        std::string_view resource) const {
  int q = FindClusterQueue(cq), f = FlavorIndex(flavor), r = ResourceIndex(resource);
  if (q < 0 || f < 0 || r < 0) return kUnlimited;
  return tree_.BorrowingLimit(cqs_[q].node, Fr(f, r));
}

}  // namespace steward::govern
