#include "govern/quota_tree.h"

#include <algorithm>
#include <limits>

#include "model/status.h"

namespace steward::govern {

QuotaTree::QuotaTree(int num_flavors, int num_resources)
    : num_resources_(num_resources), num_fr_(num_flavors * num_resources) {}

int QuotaTree::AddNode(bool is_cq, double fair_weight) {
  Node n;
  n.is_cq = is_cq;
  n.weight = fair_weight;
  n.defined.assign(num_fr_, 0);
  n.nominal.assign(num_fr_, 0);
  n.bl.assign(num_fr_, kUnlimited);
  n.ll.assign(num_fr_, kUnlimited);
  n.sq.assign(num_fr_, 0);
  n.local.assign(num_fr_, 0);
  n.usage.assign(num_fr_, 0);
  n.potential.assign(num_fr_, 0);
  n.potential_nobl.assign(num_fr_, 0);
  nodes_.push_back(std::move(n));
  return static_cast<int>(nodes_.size()) - 1;
}

void QuotaTree::SetParent(int node, int parent) {
  STEWARD_CHECK(!finalized_);
  nodes_[node].parent = parent;
  nodes_[parent].children.push_back(node);
}

void QuotaTree::SetQuota(int node, int fr, Amount nominal, Amount borrowing_limit,
                         Amount lending_limit) {
  STEWARD_CHECK(!finalized_);
  Node& n = nodes_[node];
  n.defined[fr] = 1;
  n.nominal[fr] = nominal;
  n.bl[fr] = borrowing_limit;
  n.ll[fr] = lending_limit;
}

void QuotaTree::Finalize() {
  STEWARD_CHECK(!finalized_);
  finalized_ = true;
  // Pre-order from every root; reversed, it is a post-order (children before parents).
  order_.reserve(nodes_.size());
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
    if (nodes_[i].parent != -1) continue;
    std::vector<int> stack = {i};
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      order_.push_back(n);
      for (int c : nodes_[n].children) stack.push_back(c);
    }
  }
  STEWARD_CHECK(order_.size() == nodes_.size());
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {  // Children first.
    Node& n = nodes_[*it];
    n.height = 0;
    for (int c : n.children)
      n.height = std::max(n.height, nodes_[c].is_cq ? 1 : nodes_[c].height + 1);
  }
  ComputeQuotas();
}

void QuotaTree::ComputeQuotas() {
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    Node& n = nodes_[*it];
    for (int fr = 0; fr < num_fr_; ++fr) {
      Amount sq = n.nominal[fr];
      for (int c : n.children) sq = SatAdd(sq, nodes_[c].sq[fr] - nodes_[c].local[fr]);
      n.sq[fr] = sq;
      n.local[fr] = n.ll[fr] == kUnlimited ? 0 : std::max<Amount>(0, sq - n.ll[fr]);
    }
  }
  for (int id : order_) {
    Node& n = nodes_[id];
    for (int fr = 0; fr < num_fr_; ++fr) {
      if (n.parent == -1) {
        n.potential[fr] = n.sq[fr];
        n.potential_nobl[fr] = n.sq[fr];
      } else {
        const Node& p = nodes_[n.parent];
        Amount via_parent = SatAdd(n.local[fr], p.potential[fr]);
        n.potential[fr] = std::min(via_parent, SatAdd(n.sq[fr], n.bl[fr]));
        n.potential_nobl[fr] = SatAdd(n.local[fr], p.potential_nobl[fr]);
      }
    }
  }
}

void QuotaTree::UpdateQuota(int node, int fr, Amount nominal, Amount borrowing_limit,
                            Amount lending_limit) {
  STEWARD_CHECK(finalized_);
  // Cohort usage is derived from the queues' usage through `local`, which the new quota may
  // change: take the queues' usage of fr out, change the quota, and put it back.
  std::vector<std::pair<int, Amount>> cq_usage;
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i)
    if (nodes_[i].is_cq && nodes_[i].usage[fr] != 0) {
      cq_usage.emplace_back(i, nodes_[i].usage[fr]);
      AddUsage(i, fr, -nodes_[i].usage[fr]);
    }
  Node& n = nodes_[node];
  n.defined[fr] = 1;
  n.nominal[fr] = nominal;
  n.bl[fr] = borrowing_limit;
  n.ll[fr] = lending_limit;
  ComputeQuotas();
  for (const auto& [i, u] : cq_usage) AddUsage(i, fr, u);
}

void QuotaTree::AddUsage(int node, int fr, Amount delta) {
  while (node != -1 && delta != 0) {
    Node& n = nodes_[node];
    Amount before = n.usage[fr];
    Amount after = before + delta;
    n.usage[fr] = after;
    Amount local = n.local[fr];
    delta = std::max<Amount>(0, after - local) - std::max<Amount>(0, before - local);
    node = n.parent;
  }
}

int QuotaTree::Root(int node) const {
  while (nodes_[node].parent != -1) node = nodes_[node].parent;
  return node;
}

int QuotaTree::Depth(int node) const {
  int d = 0;
  while (nodes_[node].parent != -1) node = nodes_[node].parent, ++d;
  return d;
}

Amount QuotaTree::AvailableImpl(int node, int fr, bool honour_bl) const {
  const Node& n = nodes_[node];
  if (n.parent == -1) return n.sq[fr] - n.usage[fr];
  Amount from_parent = AvailableImpl(n.parent, fr, honour_bl);
  if (honour_bl && n.bl[fr] != kUnlimited) {
    Amount cap =
        (n.sq[fr] - n.local[fr]) - std::max<Amount>(0, n.usage[fr] - n.local[fr]) + n.bl[fr];
    from_parent = std::min(from_parent, cap);
  }
  return std::max<Amount>(0, n.local[fr] - n.usage[fr]) + from_parent;
}

Amount QuotaTree::Available(int node, int fr) const { return AvailableImpl(node, fr, true); }

Amount QuotaTree::AvailableIgnoringBorrowingLimits(int node, int fr) const {
  return AvailableImpl(node, fr, false);
}

int QuotaTree::BorrowingLevel(int node, int fr, Amount request, bool subtree_height) const {
  int level = 0;
  Amount delta = request;
  int last = node;
  while (node != -1) {
    const Node& n = nodes_[node];
    Amount after = n.usage[fr] + delta;
    if (after <= n.sq[fr]) return subtree_height ? n.height : level;
    last = node;
    delta =
        std::max<Amount>(0, after - n.local[fr]) - std::max<Amount>(0, n.usage[fr] - n.local[fr]);
    node = n.parent;
    ++level;
  }
  return subtree_height ? nodes_[last].height : level;  // No subtree fits: the whole tree's.
}

bool QuotaTree::MayReclaimInHierarchy(int node, int fr, Amount request) const {
  const Node& n = nodes_[node];
  if (n.parent == -1) return false;
  if (n.usage[fr] + request <= n.sq[fr]) return true;
  Amount remaining = request - std::max<Amount>(0, n.local[fr] - n.usage[fr]);
  for (int a = n.parent; a != -1; a = nodes_[a].parent) {
    const Node& an = nodes_[a];
    if (an.usage[fr] + remaining <= an.sq[fr]) return an.parent != -1;
    remaining -= std::max<Amount>(0, an.local[fr] - an.usage[fr]);
  }
  return false;
}

double QuotaTree::DominantResourceShare(int node, const std::vector<Amount>& extra,
                                        bool weighted) const {
  const Node& n = nodes_[node];
  if (n.parent == -1) return 0.0;
  const Node& p = nodes_[n.parent];
  double best = 0.0;
  bool borrowing = false;
  int num_flavors = num_resources_ == 0 ? 0 : num_fr_ / num_resources_;
  for (int r = 0; r < num_resources_; ++r) {
    Amount borrowed = 0, lendable = 0;
    for (int f = 0; f < num_flavors; ++f) {
      int fr = f * num_resources_ + r;
      Amount used = n.usage[fr] + (extra.empty() ? 0 : extra[fr]);
      borrowed += std::max<Amount>(0, used - n.sq[fr]);
      lendable = SatAdd(lendable, p.potential[fr]);
    }
    if (borrowed > 0) borrowing = true;
    if (lendable <= 0 || lendable == kUnlimited) continue;
    best = std::max(best, 1000.0 * static_cast<double>(borrowed) / static_cast<double>(lendable));
  }
  if (!borrowing) return 0.0;
  if (!weighted) return best;
  if (n.weight <= 0) return std::numeric_limits<double>::infinity();
  return best / n.weight;
}

std::vector<QuotaTree::PathShare> QuotaTree::PathShares(int node,
                                                        const std::vector<Amount>& extra) const {
  std::vector<PathShare> path;
  std::vector<Amount> add = extra;
  for (int n = node; n >= 0 && nodes_[n].parent >= 0; n = nodes_[n].parent) {
    const Node& at = nodes_[n];
    PathShare s{n, false, DominantResourceShare(n, add), DominantResourceShare(n, add, false)};
    for (int fr = 0; fr < num_fr_; ++fr)
      if (extra[fr] > 0 && at.usage[fr] + add[fr] > at.sq[fr]) s.borrowing = true;
    path.push_back(s);
    // What the parent sees: usage bubbles up past the local quota (never lent).
    for (int fr = 0; fr < num_fr_; ++fr) {
      if (add[fr] == 0) continue;
      add[fr] = std::max<Amount>(0, at.usage[fr] + add[fr] - at.local[fr]) -
                std::max<Amount>(0, at.usage[fr] - at.local[fr]);
    }
  }
  return path;
}

}  // namespace steward::govern
