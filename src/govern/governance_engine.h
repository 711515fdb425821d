// GovernanceEngine: Kueue-semantics admission over an imported Policy.
//
// The engine holds the policy (flavors, ClusterQueues, Cohorts, LocalQueues, priority
// classes), tracks quota usage per ClusterQueue / flavor / resource in a QuotaTree, and knows
// every admitted workload (for victims). It answers one question, TryAdmit(): can this
// workload be admitted now, on which flavors, or what must be preempted, or why not. It never
// changes state on its own: Admit() and Release() do, and the caller (the twin) turns
// decisions into events: evict victims, place pods, time out, requeue.
//
// Typical loop (the twin):
//   auto engine = GovernanceEngine::Create(policy, options);        // once
//   Decision d = engine->TryAdmit(req, now);
//   if (d.mode == AdmissionMode::kFit) engine->Admit(req, d, now);   // reserve quota
//   else if (d.mode == AdmissionMode::kNeedsPreemption)
//     for (auto& v : d.victims) { record v.lost_gpu_hours; engine->Release(v.workload_id); }
//     // ... and retry TryAdmit next cycle (Kueue waits for the victims to go).
//   else queue the workload with d.primary_reason() / d.Message().
//   engine->Release(id) when the workload finishes, is evicted or times out.
//
// Rules implemented (queue-semantics.md): quota tree §2.1; flavor assignment in list order
// with flavorFungibility §2.5; classical preemption candidates, order, minimal set and
// fill-back §2.6; fair-sharing DRS and S2-a/S2-b preemption §2.7 (EngineOptions.fair_sharing);
// Steward's tiers: production never preempted, training only if it checkpoints, dev always.
//
// Cost: TryAdmit is O(pod sets x flavors x depth) when it fits; with preemption it adds
// O(candidates x log candidates) over the admitted workloads of the preemptor's queue and of
// the borrowing queues of its cohort tree. Nothing scans all workloads.
//
// Not thread-safe: owned by the twin loop.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "govern/decision.h"
#include "govern/policy.h"
#include "govern/quota_tree.h"
#include "govern/victim_ordering.h"
#include "govern/workload_request.h"
#include "model/status.h"
#include "model/time.h"

namespace steward::govern {

struct EngineOptions {
  // Victim ordering by name (victim_ordering.h). Steward's default minimises lost work;
  // "kueue-classic" reproduces Kueue's order exactly.
  std::string victim_ordering = "checkpoint-aware";
  // Steward tiers: production is never a victim, training only if it checkpoints (interval
  // > 0), dev always. false = Kueue behaviour (priority rules only).
  bool enforce_tiers = true;
  // Kueue config `fairSharing:` present: preemption across queues uses DRS with strategies
  // S2-a LessThanOrEqualToFinalShare then S2-b LessThanInitialShare; borrowWithinCohort is
  // ignored (queue-semantics.md §2.7).
  bool fair_sharing = false;
  // Kueue's flavor assigner tries preemption whenever the request fits the nominal quota, even
  // when the queue's policies allow no victim (the mode is then "preempt without candidates",
  // which the scheduler uses to reserve quota). false: such a flavor is plain "no fit" (the
  // twin's reasons stay short).
  bool preempt_mode_without_policy = false;
  // Borrowing level as Kueue measures it (height of the lowest cohort subtree that fits, see
  // QuotaTree::BorrowingLevel); false: one per cohort level (the twin's historical measure).
  bool kueue_borrowing_height = false;
};

// One row of quota state, for metrics (kueue_cluster_queue_* names) and reports.
struct QuotaStatus {
  std::string cluster_queue;
  std::string cohort;
  std::string flavor;
  std::string resource;
  Amount nominal = 0;
  Amount borrowing_limit = kUnlimited;
  Amount lending_limit = kUnlimited;
  Amount usage = 0;
  Amount borrowed = 0;  // max(0, usage - nominal).
  Amount available = 0;
  Amount max_usable = 0;  // PotentiallyAvailable: the most the queue can ever hold.
};

// A workload holding quota.
struct AdmittedWorkload {
  int64_t id = 0;
  std::string name;
  int cluster_queue = -1;
  int32_t priority = 0;
  model::Tier tier = model::Tier::kDev;
  SimTime admit_time;
  SimTime queue_timestamp;
  std::vector<std::pair<int, Amount>> usage;  // (fr, amount).
  int gpus = 0;
  SimDuration checkpoint_interval;
  SimDuration restore_time;
  SimTime last_checkpoint = SimTime::Never();  // Reported by the twin; Never = derive.
  bool evicting = false;
  int slot = -1;  // Position in its queue's list of admitted workloads.
};

class GovernanceEngine {
 public:
  // Validates cross-references (LocalQueue -> ClusterQueue, parents) and builds the tree.
  // Queues referring to missing flavors or in a cohort cycle are kept but inactive (as in
  // Kueue); a dangling LocalQueue or an unknown victim ordering is an error.
  static Result<std::unique_ptr<GovernanceEngine>> Create(const Policy& policy,
                                                          EngineOptions options = {});
  GovernanceEngine(const GovernanceEngine&) = delete;
  GovernanceEngine& operator=(const GovernanceEngine&) = delete;
  ~GovernanceEngine();

  // Decides whether `req` can be admitted at `now`. Pure: changes no state.
  Decision TryAdmit(const WorkloadRequest& req, SimTime now) const;
  // Reserves the quota of a kFit decision for `req`. REQUIRES: `decision` came from TryAdmit
  // on the current state. Fails if the id is already admitted or the quota no longer fits.
  Status Admit(const WorkloadRequest& req, const Decision& decision, SimTime now);
  // Records a workload that already holds quota (Kueue's status.admission) without checking
  // that it fits: a cluster may hold more than its queues allow after a quota change.
  Status RestoreAdmission(const WorkloadRequest& req, const Decision& decision,
                          SimTime admitted_at);
  // Would `decision`'s assignments fit if the admitted workloads `removed` were gone (Kueue's
  // scheduler check before issuing preemptions)? State is unchanged on return.
  bool FitsWithout(const Decision& decision, const std::vector<int64_t>& removed) const;
  // Adds `delta` (may be negative) to a queue's usage of every assignment, scaled by `scale`
  // per assignment (the scheduler's reservations inside one cycle). Undo with -delta.
  void AddAssignmentUsage(const Decision& decision, const std::vector<Amount>& amounts);
  // Fair-sharing weighted share of the decision's queue once its assignments are added.
  double DominantResourceShareWith(const Decision& decision, bool weighted = true) const;
  // The decision's queue and its cohorts up to (not including) the root, each with its share
  // once the decision's assignments are added (Kueue's fair-sharing tournament). Empty when the
  // queue has no cohort.
  std::vector<QuotaTree::PathShare> FairSharingPath(const Decision& decision) const;
  // Nominal quota, borrowing limit (kUnlimited if none) of a queue's (flavor, resource).
  Amount Nominal(std::string_view cq, std::string_view flavor, std::string_view resource) const;
  Amount BorrowingLimit(std::string_view cq, std::string_view flavor,
                        std::string_view resource) const;
  // Frees the quota of an admitted workload (finished, evicted, timed out).
  Status Release(int64_t workload_id);
  // Marks an admitted workload as being evicted (victim chosen, not gone yet): it is ordered
  // first by every VictimOrdering, as in Kueue.
  Status MarkEvicting(int64_t workload_id);
  // The twin reports a completed checkpoint (otherwise derived from checkpoint_interval).
  Status ReportCheckpoint(int64_t workload_id, SimTime at);
  // waitForPodsReady blockAdmission: while set, fitting workloads get kDeferred
  // (kWaitingForPodsReady). Driven by PodsReadyTracker::AdmissionBlocked().
  void SetAdmissionBlocked(bool blocked) { admission_blocked_ = blocked; }
  // Changes the nominal quota of (cq, flavor, resource) while running (steward serve's quota
  // control). Limits stay; admitted workloads keep their quota even above the new nominal
  // (Kueue does not evict on quota changes either). `flavor` "" = the queue's only flavor
  // listing `resource` (an error when it lists several). Rejects a nominal below the
  // lendingLimit (Kueue's validation) and unknown names.
  Status SetNominalQuota(std::string_view cq, std::string_view flavor, std::string_view resource,
                         Amount nominal);
  // Changes (or, nullopt, removes) the lendingLimit of (cq, flavor, resource) while running (the
  // tidal controller's lendingLimit form, docs/tidal.md). Admitted workloads keep their quota,
  // also borrowers beyond what the cohort now lends (Kueue evicts nobody on a quota change).
  // Kueue's validation: the queue must be in a cohort and the limit within [0, nominalQuota].
  Status SetLendingLimit(std::string_view cq, std::string_view flavor, std::string_view resource,
                         std::optional<Amount> lending_limit);
  // Namespace labels for namespaceSelector. Unknown namespaces have only
  // kubernetes.io/metadata.name=<name>, as Kubernetes sets.
  void SetNamespaceLabels(const std::string& ns, std::map<std::string, std::string> labels);

  // Lookups.
  const Policy& policy() const { return policy_; }
  const EngineOptions& options() const { return options_; }
  std::string_view victim_ordering_name() const { return ordering_->Name(); }
  int num_cluster_queues() const { return static_cast<int>(cqs_.size()); }
  int FindClusterQueue(std::string_view name) const;  // -1 if none.
  const std::string& ClusterQueueName(int cq) const { return cqs_[cq].spec.name; }
  // The ClusterQueue a request goes to (via its LocalQueue), or a reason why none.
  Result<int> ResolveClusterQueue(const WorkloadRequest& req) const;
  int32_t ResolvePriority(const WorkloadRequest& req) const;
  model::Tier ResolveTier(const WorkloadRequest& req) const;
  const AdmittedWorkload* FindAdmitted(int64_t id) const;
  // The flavor and resource names of a flavor-resource index (AdmittedWorkload::usage).
  std::pair<std::string_view, std::string_view> FlavorResource(int fr) const {
    return {policy_.flavors[fr / num_resources_].name, resource_names_[fr % num_resources_]};
  }
  int AdmittedCount(int cq) const { return static_cast<int>(cqs_[cq].admitted.size()); }
  int total_admitted() const { return static_cast<int>(admitted_.size()); }

  // Quota numbers for one queue/flavor/resource (0 when the queue does not list it).
  Amount Usage(std::string_view cq, std::string_view flavor, std::string_view resource) const;
  Amount Available(std::string_view cq, std::string_view flavor, std::string_view resource) const;
  Amount MaxUsable(std::string_view cq, std::string_view flavor, std::string_view resource) const;
  std::vector<QuotaStatus> QuotaStatuses() const;
  // Fair-sharing weighted share of a queue (Kueue status.fairSharing.weightedShare, ceil).
  double DominantResourceShare(int cq) const;
  // The queue's queueingStrategy (the twin's pending heaps honour it).
  QueueingStrategy queueing_strategy(int cq) const { return cqs_[cq].spec.queueing_strategy; }
  // Every ClusterQueue of cq's cohort tree (cq itself included; just cq without a cohort): the
  // queues whose admissions can change once cq's usage changes.
  const std::vector<int>& CohortQueues(int cq) const {
    return cqs_by_root_[root_slot_[cqs_[cq].root]];
  }
  // True when the queue borrows on any (flavor, resource).
  bool IsBorrowing(int cq) const;

  // Lost GPU-hours if `id` were preempted at `now` (see VictimCandidate).
  double LostGpuHours(const AdmittedWorkload& w, SimTime now) const;

 private:
  struct Group {
    std::vector<int> resources;  // Resource indices covered.
    std::vector<int> flavors;    // Flavor indices, in the order to try.
  };
  struct CqState {
    ClusterQueue spec;
    int node = -1;
    int root = -1;
    bool active = true;
    std::string inactive_reason;
    std::vector<Group> groups;
    std::vector<int> group_of_resource;       // Resource index -> group, -1 = not covered.
    std::vector<AdmittedWorkload*> admitted;  // Into admitted_ (nodes are stable).
  };
  struct Contested {
    int fr;
    Amount need;  // The preemptor's total on this fr.
  };

  GovernanceEngine(Policy policy, EngineOptions options);
  Status Build();
  // One (flavor, resource) quota of a queue, for a change while running: the spec's copies
  // (the engine's and the policy's) and the tree's index.
  struct QuotaEntry {
    int cq = -1;
    int fr = -1;
    std::string flavor;
    std::vector<ResourceQuota*> copies;
  };
  Result<QuotaEntry> FindQuotaEntry(std::string_view cq, std::string_view flavor,
                                    std::string_view resource);
  void UpdateQuotaEntry(const QuotaEntry& e, const ResourceQuota& quota);
  int ResourceIndex(std::string_view name) const;
  int FlavorIndex(std::string_view name) const;
  int Fr(int flavor, int resource) const { return flavor * num_resources_ + resource; }
  bool FlavorMatches(int flavor, const PodSetRequest& ps, std::string* why) const;
  bool TierAllowsPreemption(const AdmittedWorkload& w) const;
  bool Fits(int cq, const std::vector<Contested>& contested, bool allow_borrowing) const;
  // `requested`: every (fr, total) of the request, contested or not (reclaiming without
  // borrowing is only possible when the uncontested ones stay within nominal too).
  std::vector<PreemptionTarget> FindTargets(int cq, int32_t priority, SimTime queue_ts,
                                            const std::vector<Contested>& contested, SimTime now,
                                            const std::vector<Contested>& requested = {}) const;
  std::vector<PreemptionTarget> FairSharingTargets(int cq, int32_t priority, SimTime queue_ts,
                                                   const std::vector<Contested>& contested,
                                                   SimTime now) const;
  // Minimal target search over `candidates` in the ordering's order: remove until it fits,
  // then fill back. Usage is restored before returning.
  // `order` holds indices into `candidates` (it is reordered).
  std::vector<int64_t> MinimalTargets(int cq, const std::vector<Contested>& contested,
                                      const std::vector<VictimCandidate>& candidates,
                                      std::vector<int>& order, bool allow_borrowing) const;
  bool CrossQueueVictimValid(int victim_cq, int preemptor_cq,
                             const std::vector<Contested>& contested) const;
  VictimCandidate MakeCandidate(const AdmittedWorkload& w, bool same_queue, SimTime now) const;
  void ApplyUsage(const AdmittedWorkload& w, int sign) const;
  Status AdmitImpl(const WorkloadRequest& req, const Decision& decision, SimTime now,
                   bool check_quota);
  // (fr, amount) per assignment of a decision; fr -1 for unknown names.
  std::vector<std::pair<int, Amount>> DecisionUsage(const Decision& decision) const;

  Policy policy_;
  EngineOptions options_;
  std::unique_ptr<VictimOrdering> ordering_;
  int num_resources_ = 0;
  std::vector<std::string> resource_names_;
  std::unordered_map<std::string, int> resource_index_;
  std::unordered_map<std::string, int> flavor_index_;
  std::vector<CqState> cqs_;
  std::unordered_map<std::string, int> cq_index_;
  std::vector<int> cohort_node_;               // Policy cohort index -> tree node.
  std::vector<std::vector<int>> cqs_by_root_;  // Tree root node -> cluster queues under it.
  std::vector<int> root_slot_;                 // Tree node -> slot in cqs_by_root_ (roots).
  std::unordered_map<std::string, const LocalQueue*> local_queues_;  // "ns/name".
  std::unordered_map<std::string, const WorkloadPriorityClass*> priority_classes_;
  std::unordered_map<std::string, std::map<std::string, std::string>> namespace_labels_;
  // Mutable so TryAdmit can simulate removals on the live tree and undo them (const API).
  mutable QuotaTree tree_;
  std::unordered_map<int64_t, AdmittedWorkload> admitted_;
  // Reused by FindTargets so a decision allocates no candidate buffer (TryAdmit is const).
  mutable std::vector<VictimCandidate> scratch_candidates_;
  bool admission_blocked_ = false;
};

// A Volcano PodGroup as a request: one pod set of minMember pods whose total is minResources
// (each pod gets minResources / minMember, rounded up), in the Queue named by the group
// (mapped to the ClusterQueue of that name).
WorkloadRequest PodGroupToRequest(const PodGroupSpec& pg, int64_t id);

}  // namespace steward::govern
