// QuotaTree: Kueue's quota arithmetic over the tree of ClusterQueues and Cohorts.
//
// Every ClusterQueue and every Cohort is a node; quantities are kept per (flavor, resource),
// "fr", a dense index flavor * num_resources + resource. The rules are Kueue's
// pkg/cache/scheduler/resource_node.go (queue-semantics.md §2.1):
//   SQ(N)    = nominal(N) + sum over children C of (SQ(C) - local(C))      (subtree quota)
//   local(N) = max(0, SQ(N) - LL(N)) if a lendingLimit is set, else 0      (never lent)
//   usage(P) = sum over children C of max(0, usage(C) - local(C))          (usage bubbling)
//   available(root) = SQ - usage; otherwise max(0, local - usage) + X, X = available(parent),
//     capped by (SQ - local) - max(0, usage - local) + BL when a borrowingLimit is set
//   potential(root) = SQ; otherwise min(local + potential(parent), SQ + BL)
// Quotas are fixed after Finalize(); usage changes in O(depth) per (node, fr).
//
// Not thread-safe; owned by a GovernanceEngine.
#pragma once

#include <string>
#include <vector>

#include "govern/quantity.h"

namespace steward::govern {

class QuotaTree {
 public:
  QuotaTree(int num_flavors, int num_resources);

  // Adds a node (a ClusterQueue when is_cq) and returns its id.
  int AddNode(bool is_cq, double fair_weight = 1.0);
  // REQUIRES: before Finalize(); no cycles (the engine checks).
  void SetParent(int node, int parent);
  // Declares the quota of node for fr. Limits use kUnlimited for "not set".
  void SetQuota(int node, int fr, Amount nominal, Amount borrowing_limit, Amount lending_limit);
  // Computes SQ, local and potential. REQUIRES: called once, after all SetQuota/SetParent.
  void Finalize();
  // Changes a quota after Finalize() (a live quota control). Usage is kept; quotas and the
  // usage bubbled into cohorts are recomputed. O(nodes x fr).
  void UpdateQuota(int node, int fr, Amount nominal, Amount borrowing_limit, Amount lending_limit);

  // Adds delta (may be negative) to node's usage of fr and bubbles it to the ancestors.
  // O(depth).
  void AddUsage(int node, int fr, Amount delta);

  int num_fr() const { return num_fr_; }
  int num_resources() const { return num_resources_; }
  int parent(int node) const { return nodes_[node].parent; }
  bool is_cq(int node) const { return nodes_[node].is_cq; }
  int Root(int node) const;
  int Depth(int node) const;
  double fair_weight(int node) const { return nodes_[node].weight; }

  bool Defines(int node, int fr) const { return nodes_[node].defined[fr]; }
  Amount Nominal(int node, int fr) const { return nodes_[node].nominal[fr]; }
  Amount BorrowingLimit(int node, int fr) const { return nodes_[node].bl[fr]; }
  Amount LendingLimit(int node, int fr) const { return nodes_[node].ll[fr]; }
  Amount SubtreeQuota(int node, int fr) const { return nodes_[node].sq[fr]; }
  Amount LocalQuota(int node, int fr) const { return nodes_[node].local[fr]; }
  Amount Usage(int node, int fr) const { return nodes_[node].usage[fr]; }

  // What node can still take without preemption (may be negative after quota shrinks).
  Amount Available(int node, int fr) const;
  // Same, as if no borrowingLimit were set anywhere on the path (tells "borrowing limit" apart
  // from "the cohort is full" in pending reasons).
  Amount AvailableIgnoringBorrowingLimits(int node, int fr) const;
  // The largest amount that could ever fit, ignoring all usage ("max_usable").
  Amount PotentiallyAvailable(int node, int fr) const { return nodes_[node].potential[fr]; }
  Amount PotentialIgnoringBorrowingLimits(int node, int fr) const {
    return nodes_[node].potential_nobl[fr];
  }
  // A node borrows on fr iff usage > SQ (for a ClusterQueue SQ = nominal).
  bool Borrowing(int node, int fr) const { return Usage(node, fr) > SubtreeQuota(node, fr); }
  // Height of the lowest subtree that holds usage + request: 0 = within the node's own quota,
  // k = within the k-th ancestor's subtree quota. Used to prefer non-borrowing admissions.
  // `subtree_height`: measure as Kueue does (FindHeightOfLowestSubtreeThatFits): the height of
  // that subtree (distance to its furthest leaf), so borrowing from a deep cohort ranks above
  // borrowing from a shallow sibling; otherwise the number of steps up.
  int BorrowingLevel(int node, int fr, Amount request, bool subtree_height = false) const;
  // Kueue's FindHeightOfLowestSubtreeThatFits, second result: true when the lowest subtree
  // holding the node's usage + request has a parent, i.e. it is not the whole cohort tree (the
  // node may then reclaim inside that subtree although it goes above its own nominal quota).
  bool MayReclaimInHierarchy(int node, int fr, Amount request) const;

  // Dominant resource share of node against its parent, with `extra` (indexed by fr, may be
  // empty) added to its usage: max over resources of 1000 * borrowed / lendable, divided by
  // the node's weight (Kueue fair_sharing.go). 0 for roots and non-borrowing nodes; +inf when
  // borrowing with weight 0.
  // `weighted` false: the share before the division by the weight (Kueue compares that between
  // two zero-weight borrowers, whose weighted shares are both infinite).
  double DominantResourceShare(int node, const std::vector<Amount>& extra,
                               bool weighted = true) const;

  // One node on the path from a ClusterQueue to its root, with a workload's usage added.
  struct PathShare {
    int node = -1;
    bool borrowing = false;  // Usage above SQ on a fr the workload requests (Kueue IsBorrowingOn).
    double share = 0;        // DominantResourceShare, weighted.
    double unweighted = 0;   // The same before the division by the weight.
  };
  // Kueue's fair-sharing tournament values (computeDRS): for node and each ancestor below the
  // root, the node's share with `extra` (by fr) added at `node` and bubbled up as usage is
  // (past each node's local quota). Nothing is changed. O(depth x fr).
  std::vector<PathShare> PathShares(int node, const std::vector<Amount>& extra) const;

 private:
  struct Node {
    int parent = -1;
    bool is_cq = false;
    int height = 0;  // Distance to the furthest leaf (Kueue's getNodeHeight).
    double weight = 1.0;
    std::vector<int> children;
    std::vector<char> defined;
    std::vector<Amount> nominal, bl, ll, sq, local, usage, potential, potential_nobl;
  };
  Amount AvailableImpl(int node, int fr, bool honour_bl) const;
  // SQ, local and potential of every node from the quotas (order_ must be set).
  void ComputeQuotas();

  int num_resources_;
  int num_fr_;
  bool finalized_ = false;
  std::vector<Node> nodes_;
  std::vector<int> order_;  // Pre-order over every tree (parents before children).
};

}  // namespace steward::govern
