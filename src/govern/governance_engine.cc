#include "govern/governance_engine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

namespace steward::govern {
namespace {

constexpr const char* kGpuResource = "nvidia.com/gpu";

// Flavor-mode ranks (Kueue flavorassigner granular modes: NoFit < Preempt without candidates <
// Preempt (some victim in the own queue) < Reclaim (victims only in other queues) < Fit).
enum Rank {
  kRankNoFit = 0,
  kRankNoCandidates = 1,
  kRankPreempt = 2,
  kRankReclaim = 3,
  kRankFit = 4
};

std::string Canon(Amount a, std::string_view resource) {
  if (a == kUnlimited) return "unlimited";
  if (IsMilliResource(resource)) return fmt::format("{:g}", CanonicalValue(a, resource));
  return fmt::format("{}", a);
}

}  // namespace

std::string_view AdmissionModeName(AdmissionMode mode) {
  switch (mode) {
    case AdmissionMode::kNoFit:
      return "no_fit";
    case AdmissionMode::kNeedsPreemption:
      return "needs_preemption";
    case AdmissionMode::kDeferred:
      return "deferred";
    case AdmissionMode::kFit:
      return "fit";
  }
  return "no_fit";
}

std::string_view PreemptionReasonName(PreemptionReason reason) {
  switch (reason) {
    case PreemptionReason::kInClusterQueue:
      return "InClusterQueue";
    case PreemptionReason::kInCohortReclamation:
      return "InCohortReclamation";
    case PreemptionReason::kInCohortReclaimWhileBorrowing:
      return "InCohortReclaimWhileBorrowing";
    case PreemptionReason::kInCohortFairSharing:
      return "InCohortFairSharing";
  }
  return "";
}

std::string Decision::Message() const {
  std::string out = fmt::format("{}", AdmissionModeName(mode));
  if (!cluster_queue.empty()) out += fmt::format(" in ClusterQueue {}", cluster_queue);
  for (const auto& r : reasons)
    out += fmt::format("; {}: {}", PendingReasonName(r.reason), r.message);
  if (!victims.empty()) out += fmt::format("; preempts {} workload(s)", victims.size());
  return out;
}

GovernanceEngine::GovernanceEngine(Policy policy, EngineOptions options)
    : policy_(std::move(policy)), options_(std::move(options)), tree_(0, 0) {}

GovernanceEngine::~GovernanceEngine() = default;

Result<std::unique_ptr<GovernanceEngine>> GovernanceEngine::Create(const Policy& policy,
                                                                   EngineOptions options) {
  std::unique_ptr<GovernanceEngine> e(new GovernanceEngine(policy, std::move(options)));
  STEWARD_RETURN_IF_ERROR(e->Build());
  return e;
}

int GovernanceEngine::ResourceIndex(std::string_view name) const {
  auto it = resource_index_.find(std::string(name));
  return it == resource_index_.end() ? -1 : it->second;
}

int GovernanceEngine::FlavorIndex(std::string_view name) const {
  auto it = flavor_index_.find(std::string(name));
  return it == flavor_index_.end() ? -1 : it->second;
}

int GovernanceEngine::FindClusterQueue(std::string_view name) const {
  auto it = cq_index_.find(std::string(name));
  return it == cq_index_.end() ? -1 : it->second;
}

Status GovernanceEngine::Build() {
  STEWARD_ASSIGN_OR_RETURN(ordering_, NewVictimOrdering(options_.victim_ordering));
  for (size_t i = 0; i < policy_.flavors.size(); ++i)
    flavor_index_[policy_.flavors[i].name] = static_cast<int>(i);
  auto add_resources = [&](const std::vector<ResourceGroup>& groups) {
    for (const auto& g : groups)
      for (const auto& r : g.covered_resources)
        if (!resource_index_.count(r)) {
          resource_index_[r] = static_cast<int>(resource_names_.size());
          resource_names_.push_back(r);
        }
  };
  for (const auto& cq : policy_.cluster_queues) add_resources(cq.resource_groups);
  for (const auto& co : policy_.cohorts) add_resources(co.resource_groups);
  num_resources_ = static_cast<int>(resource_names_.size());
  tree_ = QuotaTree(static_cast<int>(policy_.flavors.size()), num_resources_);

  auto set_quotas = [&](int node, const std::vector<ResourceGroup>& groups) {
    for (const auto& g : groups)
      for (const auto& fq : g.flavors) {
        int f = FlavorIndex(fq.flavor);
        if (f < 0) continue;
        for (const auto& rq : fq.resources) {
          int r = ResourceIndex(rq.resource);
          tree_.SetQuota(node, Fr(f, r), rq.nominal, rq.borrowing_limit.value_or(kUnlimited),
                         rq.lending_limit.value_or(kUnlimited));
        }
      }
  };

  // Cohorts: explicit objects plus names only referenced (implicit cohorts without quota).
  std::unordered_map<std::string, int> cohort_node;
  std::unordered_map<std::string, std::string> parent_of;
  std::vector<std::string> cohort_names;
  auto ensure_cohort = [&](const std::string& name) {
    if (cohort_node.count(name)) return;
    cohort_node[name] = tree_.AddNode(false);
    cohort_names.push_back(name);
  };
  for (const auto& co : policy_.cohorts) {
    ensure_cohort(co.name);
    parent_of[co.name] = co.parent;
  }
  for (const auto& co : policy_.cohorts)
    if (!co.parent.empty()) ensure_cohort(co.parent);
  for (const auto& cq : policy_.cluster_queues)
    if (!cq.cohort.empty()) ensure_cohort(cq.cohort);
  // Fair-sharing weights of cohorts.
  // (QuotaTree takes the weight at AddNode; cohorts default to 1, set below via rebuild.)
  std::unordered_map<std::string, bool> in_cycle;
  for (const auto& name : cohort_names) {
    std::unordered_map<std::string, int> seen;
    std::string cur = name;
    bool cycle = false;
    while (!cur.empty()) {
      if (seen.count(cur)) {
        cycle = true;
        break;
      }
      seen[cur] = 1;
      auto it = parent_of.find(cur);
      cur = it == parent_of.end() ? "" : it->second;
    }
    in_cycle[name] = cycle;
  }
  for (const auto& co : policy_.cohorts) {
    int node = cohort_node[co.name];
    if (!co.parent.empty() && !in_cycle[co.name]) tree_.SetParent(node, cohort_node[co.parent]);
    set_quotas(node, co.resource_groups);
  }

  for (size_t i = 0; i < policy_.cluster_queues.size(); ++i) {
    const ClusterQueue& spec = policy_.cluster_queues[i];
    CqState st;
    st.spec = spec;
    st.node = tree_.AddNode(true, spec.fair_weight);
    if (!spec.cohort.empty()) {
      tree_.SetParent(st.node, cohort_node[spec.cohort]);
      if (in_cycle[spec.cohort]) {
        st.active = false;
        st.inactive_reason = fmt::format("cohort {} is part of a parentName cycle", spec.cohort);
      }
    }
    set_quotas(st.node, spec.resource_groups);
    st.group_of_resource.assign(num_resources_, -1);
    for (const auto& g : spec.resource_groups) {
      Group grp;
      for (const auto& r : g.covered_resources) {
        int ri = ResourceIndex(r);
        grp.resources.push_back(ri);
        st.group_of_resource[ri] = static_cast<int>(st.groups.size());
      }
      for (const auto& fq : g.flavors) {
        int f = FlavorIndex(fq.flavor);
        if (f < 0) {
          st.active = false;
          st.inactive_reason =
              fmt::format("flavor {} has no ResourceFlavor (FlavorNotFound)", fq.flavor);
          continue;
        }
        grp.flavors.push_back(f);
      }
      st.groups.push_back(std::move(grp));
    }
    cq_index_[spec.name] = static_cast<int>(i);
    cqs_.push_back(std::move(st));
  }
  tree_.Finalize();
  // Cohort weights are informational in DRS only at the queue level here; see docs.
  root_slot_.assign(cqs_.size() + cohort_names.size() + 1, -1);
  for (int i = 0; i < static_cast<int>(cqs_.size()); ++i) {
    int root = tree_.Root(cqs_[i].node);
    cqs_[i].root = root;
    if (root_slot_[root] == -1) {
      root_slot_[root] = static_cast<int>(cqs_by_root_.size());
      cqs_by_root_.emplace_back();
    }
    cqs_by_root_[root_slot_[root]].push_back(i);
  }
  for (const auto& lq : policy_.local_queues)
    local_queues_[lq.namespace_name + "/" + lq.name] = &lq;
  for (const auto& pc : policy_.priority_classes) priority_classes_[pc.name] = &pc;
  for (const auto& ns : policy_.namespaces) SetNamespaceLabels(ns.name, ns.labels);
  return Status::Ok();
}

void GovernanceEngine::SetNamespaceLabels(const std::string& ns,
                                          std::map<std::string, std::string> labels) {
  labels.emplace("kubernetes.io/metadata.name", ns);
  namespace_labels_[ns] = std::move(labels);
}

Result<int> GovernanceEngine::ResolveClusterQueue(const WorkloadRequest& req) const {
  std::string name = req.cluster_queue;
  if (name.empty()) {
    auto it = local_queues_.find(req.namespace_name + "/" + req.local_queue);
    if (it == local_queues_.end())
      return Status::NotFound(
          fmt::format("LocalQueue {}/{} does not exist", req.namespace_name, req.local_queue));
    name = it->second->cluster_queue;
  }
  int cq = FindClusterQueue(name);
  if (cq < 0) return Status::NotFound(fmt::format("ClusterQueue {} does not exist", name));
  return cq;
}

int32_t GovernanceEngine::ResolvePriority(const WorkloadRequest& req) const {
  if (req.priority) return *req.priority;
  auto it = priority_classes_.find(req.priority_class);
  return it == priority_classes_.end() ? 0 : it->second->value;
}

model::Tier GovernanceEngine::ResolveTier(const WorkloadRequest& req) const {
  if (req.tier) return *req.tier;
  auto it = priority_classes_.find(req.priority_class);
  if (it != priority_classes_.end() && it->second->tier) return *it->second->tier;
  return TierForPriority(ResolvePriority(req));
}

bool GovernanceEngine::FlavorMatches(int flavor, const PodSetRequest& ps, std::string* why) const {
  const ResourceFlavor& rf = policy_.flavors[flavor];
  for (const auto& [k, v] : ps.node_selector) {
    auto it = rf.node_labels.find(k);
    if (it != rf.node_labels.end() && it->second != v) {
      *why = fmt::format("flavor {} doesn't match node affinity: {}={} (flavor has {})", rf.name, k,
                         v, it->second);
      return false;
    }
  }
  // Required node affinity, as Kueue's flavorSelector: expressions on keys the flavor does not
  // label are dropped; a term left empty matches any flavor (terms are ORed).
  if (!ps.node_affinity.empty()) {
    bool any_empty = false, matched = false;
    // Gt / Lt: the label is an integer greater / less than the one value (kube-scheduler).
    auto compare = [](const std::string& label, const LabelRequirement& e) {
      int64_t have = 0, want = 0;
      if (e.values.size() != 1) return false;
      auto [p1, ec1] = std::from_chars(label.data(), label.data() + label.size(), have);
      const std::string& v = e.values[0];
      auto [p2, ec2] = std::from_chars(v.data(), v.data() + v.size(), want);
      if (ec1 != std::errc() || ec2 != std::errc() || p1 != label.data() + label.size() ||
          p2 != v.data() + v.size())
        return false;
      return e.op == "Gt" ? have > want : have < want;
    };
    for (const auto& term : ps.node_affinity) {
      LabelSelector relevant;
      bool numeric_ok = true;
      for (const LabelRequirement& e : term) {
        auto label = rf.node_labels.find(e.key);
        if (label == rf.node_labels.end()) continue;
        if (e.op == "Gt" || e.op == "Lt") numeric_ok = numeric_ok && compare(label->second, e);
        relevant.match_expressions.push_back(e);
      }
      if (relevant.match_expressions.empty()) any_empty = true;
      if (numeric_ok && relevant.Matches(rf.node_labels)) matched = true;
    }
    if (!any_empty && !matched) {
      *why = fmt::format("flavor {} doesn't match node affinity", rf.name);
      return false;
    }
  }
  for (const auto& t : rf.node_taints) {
    if (t.effect == "PreferNoSchedule") continue;
    auto tolerated = [&](const std::vector<Toleration>& ts) {
      return std::any_of(ts.begin(), ts.end(), [&](const Toleration& tol) {
        return tol.Tolerates(t.key, t.value, t.effect);
      });
    };
    if (!tolerated(ps.tolerations) && !tolerated(rf.tolerations)) {
      *why =
          fmt::format("untolerated taint {}={}:{} in flavor {}", t.key, t.value, t.effect, rf.name);
      return false;
    }
  }
  return true;
}

bool GovernanceEngine::TierAllowsPreemption(const AdmittedWorkload& w) const {
  if (!options_.enforce_tiers) return true;
  switch (w.tier) {
    case model::Tier::kProduction:
      return false;
    case model::Tier::kTraining:
      return w.checkpoint_interval > SimDuration() || !w.last_checkpoint.is_never();
    case model::Tier::kDev:
      return true;
  }
  return true;
}

double GovernanceEngine::LostGpuHours(const AdmittedWorkload& w, SimTime now) const {
  if (now < w.admit_time) return 0;
  // Integer microseconds until the one conversion: this runs for every preemption candidate.
  int64_t since = (now - w.admit_time).micros();  // Work not saved by a checkpoint.
  int64_t restore = 0;
  const int64_t interval = w.checkpoint_interval.micros();
  if (interval > 0) {
    since %= interval;
    restore = w.restore_time.micros();
  }
  if (!w.last_checkpoint.is_never() && w.last_checkpoint <= now) {
    since = std::min(since, (now - w.last_checkpoint).micros());
    restore = w.restore_time.micros();
  }
  constexpr double kHoursPerMicro = 1.0 / 3.6e9;
  return w.gpus * static_cast<double>(since + restore) * kHoursPerMicro;
}

VictimCandidate GovernanceEngine::MakeCandidate(const AdmittedWorkload& w, bool same_queue,
                                                SimTime now) const {
  VictimCandidate c;
  c.workload_id = w.id;
  c.workload = &w;
  c.cluster_queue = w.cluster_queue;
  c.same_queue = same_queue;
  c.evicting = w.evicting;
  c.priority = w.priority;
  c.tier = w.tier;
  c.admit_time = w.admit_time;
  c.gpus = w.gpus;
  c.lost_gpu_hours = LostGpuHours(w, now);
  return c;
}

void GovernanceEngine::ApplyUsage(const AdmittedWorkload& w, int sign) const {
  int node = cqs_[w.cluster_queue].node;
  for (const auto& [fr, a] : w.usage) tree_.AddUsage(node, fr, sign * a);
}

Decision GovernanceEngine::TryAdmit(const WorkloadRequest& req, SimTime now) const {
  Decision d;
  auto fail = [&](AdmissionMode mode, PendingReason reason, std::string msg) {
    d.mode = mode;
    PendingDetail p;
    p.reason = reason;
    p.cluster_queue = d.cluster_queue;
    p.message = std::move(msg);
    d.reasons.push_back(std::move(p));
    return d;
  };
  if (!req.active)
    return fail(AdmissionMode::kNoFit, PendingReason::kDeactivated, "workload is deactivated");
  const LocalQueue* lq = nullptr;
  if (req.cluster_queue.empty()) {
    auto it = local_queues_.find(req.namespace_name + "/" + req.local_queue);
    if (it == local_queues_.end())
      return fail(AdmissionMode::kNoFit, PendingReason::kLocalQueueNotFound,
                  fmt::format("LocalQueue {} doesn't exist in namespace {}", req.local_queue,
                              req.namespace_name));
    lq = it->second;
  }
  const std::string& cq_name = lq ? lq->cluster_queue : req.cluster_queue;
  int cq = FindClusterQueue(cq_name);
  if (cq < 0)
    return fail(AdmissionMode::kNoFit, PendingReason::kClusterQueueNotFound,
                fmt::format("ClusterQueue {} doesn't exist", cq_name));
  const CqState& st = cqs_[cq];
  d.cluster_queue = st.spec.name;
  d.cluster_queue_index = cq;
  d.priority = ResolvePriority(req);
  d.tier = ResolveTier(req);
  if (!st.active)
    return fail(AdmissionMode::kNoFit, PendingReason::kQueueInactive,
                fmt::format("ClusterQueue {} is inactive: {}", st.spec.name, st.inactive_reason));
  if (st.spec.stop_policy != StopPolicy::kNone || (lq && lq->stop_policy != StopPolicy::kNone))
    return fail(AdmissionMode::kNoFit, PendingReason::kQueueStopped,
                fmt::format("{} is stopped (stopPolicy)", st.spec.stop_policy != StopPolicy::kNone
                                                              ? "ClusterQueue " + st.spec.name
                                                              : "LocalQueue " + lq->name));
  {
    static const std::map<std::string, std::string> kEmpty;
    auto it = namespace_labels_.find(req.namespace_name);
    std::map<std::string, std::string> fallback;
    const std::map<std::string, std::string>* labels = &kEmpty;
    if (it != namespace_labels_.end()) {
      labels = &it->second;
    } else {
      fallback["kubernetes.io/metadata.name"] = req.namespace_name;
      labels = &fallback;
    }
    if (!st.spec.namespace_selector || !st.spec.namespace_selector->Matches(*labels))
      return fail(
          AdmissionMode::kNoFit, PendingReason::kNamespaceMismatch,
          fmt::format("namespace {} doesn't match the namespaceSelector of ClusterQueue {}{}",
                      req.namespace_name, st.spec.name,
                      st.spec.namespace_selector ? "" : " (null selector matches none)"));
  }
  if (req.min_member > 0 && req.available_pods >= 0 && req.available_pods < req.min_member) {
    fail(AdmissionMode::kNoFit, PendingReason::kGangIncomplete,
         fmt::format("{}/{} pods of the gang exist (minMember {})", req.available_pods,
                     req.min_member, req.min_member));
    d.reasons.back().needed = req.min_member;
    d.reasons.back().available = req.available_pods;
    return d;
  }
  if (now < req.requeue_at) {
    fail(AdmissionMode::kDeferred, PendingReason::kWaitingForBackoff,
         fmt::format("requeue backoff until t={:.0f}s ({:.0f}s left)", req.requeue_at.ToSeconds(),
                     (req.requeue_at - now).ToSeconds()));
    d.retry_at = req.requeue_at;
    return d;
  }

  const int node = st.node;
  const PreemptionSpec& pol = st.spec.preemption;
  const bool any_preemption = pol.within_cluster_queue != PreemptionPolicy::kNever ||
                              pol.reclaim_within_cohort != PreemptionPolicy::kNever;
  std::vector<Amount> assigned(tree_.num_fr(), 0);
  std::vector<int> touched;
  bool need_preemption = false;
  // Victims found for the chosen preempting flavor; reused when it is the only (pod set, group)
  // that needs preemption, since then the whole-workload search would repeat it exactly.
  int preempting_groups = 0;
  std::vector<PreemptionTarget> single_targets;
  bool no_candidates = false;  // Some group can only preempt and no victims are allowed.
  std::vector<PendingDetail> no_candidate_reasons;
  int gpu = ResourceIndex(kGpuResource);
  (void)gpu;
  for (size_t psi = 0; psi < req.pod_sets.size(); ++psi) {
    const PodSetRequest& ps = req.pod_sets[psi];
    // Totals per resource index for this pod set.
    std::vector<std::pair<int, Amount>> totals;
    for (const auto& rr : ps.requests) {
      if (rr.amount < 0) continue;
      int r = ResourceIndex(rr.resource);
      // A zero request gets a flavor when the queue covers the resource and is ignored when it
      // does not (Kueue's flavorassigner: "zero resource request ... should get flavor").
      if (rr.amount == 0 && (r < 0 || st.group_of_resource[r] < 0)) continue;
      if (r < 0 || st.group_of_resource[r] < 0) {
        if (st.spec.ignore_undeclared) continue;
        return fail(AdmissionMode::kNoFit, PendingReason::kResourceNotCovered,
                    fmt::format("resource {} unavailable in ClusterQueue {} (pod set {})",
                                rr.resource, st.spec.name, ps.name));
      }
      // Saturating: a request beyond int64 is "more than any quota", never a wrapped number.
      const Amount total =
          ps.count > 0 && rr.amount > kUnlimited / ps.count ? kUnlimited : rr.amount * ps.count;
      auto it = std::find_if(totals.begin(), totals.end(), [&](auto& p) { return p.first == r; });
      if (it == totals.end())
        totals.emplace_back(r, total);
      else
        it->second = SatAdd(it->second, total);
    }
    for (size_t g = 0; g < st.groups.size(); ++g) {
      const Group& grp = st.groups[g];
      std::vector<std::pair<int, Amount>> want;
      for (const auto& [r, a] : totals)
        if (st.group_of_resource[r] == static_cast<int>(g)) want.emplace_back(r, a);
      if (want.empty()) continue;
      int best_f = -1, best_rank = -1, best_level = 0;
      std::vector<PreemptionTarget> best_targets;
      std::vector<PendingDetail> tried;
      for (int f : grp.flavors) {
        std::string why;
        const std::string& fname = policy_.flavors[f].name;
        if (!FlavorMatches(f, ps, &why)) {
          PendingDetail p;
          p.reason = PendingReason::kNoMatchingFlavor;
          p.cluster_queue = st.spec.name;
          p.pod_set = ps.name;
          p.flavor = fname;
          p.message = why;
          tried.push_back(std::move(p));
          continue;
        }
        int rank = kRankFit, level = 0;
        std::vector<Contested> contested;
        for (const auto& [r, a] : want) {
          int fr = Fr(f, r);
          Amount v = SatAdd(assigned[fr], a);
          Amount pot = tree_.PotentiallyAvailable(node, fr);
          Amount avail = std::max<Amount>(0, tree_.Available(node, fr));
          const std::string& rname = resource_names_[r];
          PendingDetail p;
          p.cluster_queue = st.spec.name;
          p.pod_set = ps.name;
          p.flavor = fname;
          p.resource = rname;
          p.needed = v;
          p.available = avail;
          if (v > pot) {
            rank = std::min<int>(rank, kRankNoFit);
            bool by_bl = tree_.PotentialIgnoringBorrowingLimits(node, fr) >= v;
            p.reason = by_bl ? PendingReason::kBorrowingLimit : PendingReason::kExceedsMaxQuota;
            p.limit = pot;
            p.message =
                fmt::format("{} {} in flavor {} > maximum capacity ({}){}", Canon(v, rname), rname,
                            fname, Canon(pot, rname),
                            by_bl ? fmt::format(" set by borrowingLimit {}",
                                                Canon(tree_.BorrowingLimit(node, fr), rname))
                                  : "");
            tried.push_back(std::move(p));
          } else if (v <= avail) {
            level =
                std::max(level, tree_.BorrowingLevel(node, fr, v, options_.kueue_borrowing_height));
          } else {
            bool by_bl = tree_.AvailableIgnoringBorrowingLimits(node, fr) >= v;
            p.reason = by_bl ? PendingReason::kBorrowingLimit : PendingReason::kQuotaExhausted;
            p.limit = by_bl ? tree_.BorrowingLimit(node, fr) : tree_.Nominal(node, fr);
            p.message = fmt::format(
                "insufficient unused quota for {} in flavor {}, {} more needed (needs {}, {} "
                "available, usage {} of nominal {}{})",
                rname, fname, Canon(v - avail, rname), Canon(v, rname), Canon(avail, rname),
                Canon(tree_.Usage(node, fr), rname), Canon(tree_.Nominal(node, fr), rname),
                by_bl ? fmt::format(", borrowingLimit {}",
                                    Canon(tree_.BorrowingLimit(node, fr), rname))
                      : "");
            tried.push_back(std::move(p));
            bool can_preempt =
                (any_preemption || options_.preempt_mode_without_policy) &&
                (v <= tree_.Nominal(node, fr) || tree_.MayReclaimInHierarchy(node, fr, v) ||
                 pol.borrow_within_cohort != PreemptionPolicy::kNever ||
                 (options_.fair_sharing && pol.reclaim_within_cohort != PreemptionPolicy::kNever));
            rank = std::min<int>(rank, can_preempt ? kRankPreempt : kRankNoFit);
            contested.push_back({fr, v});
          }
        }
        std::vector<PreemptionTarget> targets;
        if (rank == kRankPreempt) {
          std::vector<Contested> requested;
          for (const auto& [r, a] : want)
            requested.push_back({Fr(f, r), SatAdd(assigned[Fr(f, r)], a)});
          targets = FindTargets(cq, d.priority, req.queue_timestamp, contested, now, requested);
          if (targets.empty()) {
            rank = kRankNoCandidates;
            PendingDetail p;
            p.reason = PendingReason::kNoPreemptionCandidates;
            p.cluster_queue = st.spec.name;
            p.pod_set = ps.name;
            p.flavor = fname;
            p.message = fmt::format(
                "flavor {} needs preemption but no candidates are allowed (withinClusterQueue "
                "{}, reclaimWithinCohort {}, tiers {})",
                fname, PreemptionPolicyName(pol.within_cluster_queue),
                PreemptionPolicyName(pol.reclaim_within_cohort),
                options_.enforce_tiers ? "enforced" : "off");
            tried.push_back(std::move(p));
          } else if (std::none_of(targets.begin(), targets.end(), [](const PreemptionTarget& t) {
                       return t.reason == PreemptionReason::kInClusterQueue;
                     })) {
            rank = kRankReclaim;
          }
        }
        bool better = rank > best_rank || (rank == best_rank && level < best_level);
        if (better) {
          best_f = f, best_rank = rank, best_level = level;
          best_targets = std::move(targets);
        }
        if (rank == kRankFit && level == 0) break;
        if (rank == kRankFit && st.spec.when_can_borrow == FungibilityPolicy::kMayStopSearch) break;
        if ((rank == kRankPreempt || rank == kRankReclaim) &&
            st.spec.when_can_preempt == FungibilityPolicy::kMayStopSearch)
          break;
      }
      if (best_rank == kRankNoCandidates) {
        // Kueue's Preempt mode without targets: the workload stays pending, but its assignment
        // is kept (the scheduler may reserve that quota for the rest of the cycle).
        no_candidates = true;
        std::stable_sort(tried.begin(), tried.end(),
                         [](const PendingDetail& a, const PendingDetail& b) {
                           return (a.reason == PendingReason::kNoPreemptionCandidates) <
                                  (b.reason == PendingReason::kNoPreemptionCandidates);
                         });
        for (auto& t : tried) no_candidate_reasons.push_back(std::move(t));
      }
      if (best_rank < kRankNoCandidates) {
        d.mode = AdmissionMode::kNoFit;
        if (tried.empty()) {
          PendingDetail p;
          p.reason = PendingReason::kNoMatchingFlavor;
          p.cluster_queue = st.spec.name;
          p.pod_set = ps.name;
          p.message = "no flavor in the resource group";
          tried.push_back(std::move(p));
        }
        // Most specific reasons first: quota reasons before "no candidates".
        std::stable_sort(tried.begin(), tried.end(),
                         [](const PendingDetail& a, const PendingDetail& b) {
                           return (a.reason == PendingReason::kNoPreemptionCandidates) <
                                  (b.reason == PendingReason::kNoPreemptionCandidates);
                         });
        d.reasons = std::move(no_candidate_reasons);
        for (auto& t : tried) d.reasons.push_back(std::move(t));
        d.assignments.clear();
        return d;
      }
      if (best_rank == kRankPreempt || best_rank == kRankReclaim) {
        need_preemption = true;
        ++preempting_groups;
        single_targets = std::move(best_targets);
      }
      d.borrowing_level = std::max(d.borrowing_level, best_level);
      for (const auto& [r, a] : want) {
        int fr = Fr(best_f, r);
        if (assigned[fr] == 0) touched.push_back(fr);
        assigned[fr] = SatAdd(assigned[fr], a);
        FlavorAssignment fa;
        fa.pod_set = static_cast<int>(psi);
        fa.pod_set_name = ps.name;
        fa.resource = resource_names_[r];
        fa.flavor = policy_.flavors[best_f].name;
        fa.amount = a;
        fa.borrows = tree_.Usage(node, fr) + assigned[fr] > tree_.Nominal(node, fr);
        d.borrows = d.borrows || fa.borrows;
        d.assignments.push_back(std::move(fa));
      }
    }
  }
  if (no_candidates) {
    d.mode = AdmissionMode::kNoFit;
    d.reasons = std::move(no_candidate_reasons);
    return d;
  }
  if (need_preemption) {
    std::vector<Contested> contested;
    std::vector<Contested> requested;
    for (int fr : touched) {
      requested.push_back({fr, assigned[fr]});
      if (tree_.Available(node, fr) < assigned[fr]) contested.push_back({fr, assigned[fr]});
    }
    d.victims = preempting_groups == 1
                    ? std::move(single_targets)
                    : FindTargets(cq, d.priority, req.queue_timestamp, contested, now, requested);
    if (d.victims.empty()) {
      d.mode = AdmissionMode::kNoFit;
      for (const auto& c : contested) {
        int r = c.fr % num_resources_;
        PendingDetail p;
        p.reason = PendingReason::kNoPreemptionCandidates;
        p.cluster_queue = st.spec.name;
        p.flavor = policy_.flavors[c.fr / num_resources_].name;
        p.resource = resource_names_[r];
        p.needed = c.need;
        p.available = std::max<Amount>(0, tree_.Available(node, c.fr));
        p.message = fmt::format(
            "pod sets together need {} {} in flavor {}, {} available, and no "
            "victim set frees enough",
            Canon(c.need, p.resource), p.resource, p.flavor, Canon(p.available, p.resource));
        d.reasons.push_back(std::move(p));
      }
      return d;
    }
    d.mode = AdmissionMode::kNeedsPreemption;
    PendingDetail p;
    p.reason = PendingReason::kWaitingForPreemptedWorkloads;
    p.cluster_queue = st.spec.name;
    double lost = 0;
    for (const auto& v : d.victims) lost += v.lost_gpu_hours;
    p.message = fmt::format("preempting {} workload(s), {:.2f} GPU-hours of work lost",
                            d.victims.size(), lost);
    d.reasons.push_back(std::move(p));
    return d;
  }
  if (admission_blocked_) {
    d.mode = AdmissionMode::kDeferred;
    PendingDetail p;
    p.reason = PendingReason::kWaitingForPodsReady;
    p.cluster_queue = st.spec.name;
    p.message = "waitForPodsReady blockAdmission: an admitted workload is not ready yet";
    d.reasons.push_back(std::move(p));
    return d;
  }
  d.mode = AdmissionMode::kFit;
  return d;
}

Status GovernanceEngine::Admit(const WorkloadRequest& req, const Decision& decision, SimTime now) {
  return AdmitImpl(req, decision, now, true);
}

Status GovernanceEngine::RestoreAdmission(const WorkloadRequest& req, const Decision& decision,
                                          SimTime admitted_at) {
  Decision d = decision;
  d.mode = AdmissionMode::kFit;
  return AdmitImpl(req, d, admitted_at, false);
}

Status GovernanceEngine::AdmitImpl(const WorkloadRequest& req, const Decision& decision,
                                   SimTime now, bool check_quota) {
  if (decision.mode != AdmissionMode::kFit)
    return Status::FailedPrecondition(
        fmt::format("Admit of {} with a {} decision", req.name, AdmissionModeName(decision.mode)));
  if (admitted_.count(req.id))
    return Status::FailedPrecondition(fmt::format("workload {} is already admitted", req.id));
  int cq = decision.cluster_queue_index;
  if (cq < 0 || cq >= static_cast<int>(cqs_.size()))
    return Status::InvalidArgument("decision has no ClusterQueue");
  AdmittedWorkload w;
  w.id = req.id;
  w.name = req.name;
  w.cluster_queue = cq;
  w.priority = decision.priority;
  w.tier = decision.tier;
  w.admit_time = now;
  w.queue_timestamp = req.queue_timestamp;
  w.checkpoint_interval = req.checkpoint_interval;
  w.restore_time = req.restore_time;
  for (const auto& a : decision.assignments) {
    int f = FlavorIndex(a.flavor), r = ResourceIndex(a.resource);
    if (f < 0 || r < 0) return Status::InvalidArgument("decision names an unknown flavor/resource");
    int fr = Fr(f, r);
    auto it = std::find_if(w.usage.begin(), w.usage.end(), [&](auto& p) { return p.first == fr; });
    if (it == w.usage.end())
      w.usage.emplace_back(fr, a.amount);
    else
      it->second += a.amount;
    if (a.resource == kGpuResource) w.gpus += static_cast<int>(a.amount);
  }
  int node = cqs_[cq].node;
  for (const auto& [fr, a] : w.usage)
    if (check_quota && tree_.Available(node, fr) < a)
      return Status::FailedPrecondition(fmt::format(
          "quota for {} no longer fits in ClusterQueue {}", req.name, cqs_[cq].spec.name));
  ApplyUsage(w, +1);
  auto& list = cqs_[cq].admitted;
  w.slot = static_cast<int>(list.size());
  // unordered_map nodes never move, so the queue's list can point at them.
  AdmittedWorkload* stored = &admitted_.emplace(w.id, std::move(w)).first->second;
  list.push_back(stored);
  return Status::Ok();
}

Status GovernanceEngine::Release(int64_t workload_id) {
  auto it = admitted_.find(workload_id);
  if (it == admitted_.end())
    return Status::NotFound(fmt::format("workload {} is not admitted", workload_id));
  ApplyUsage(it->second, -1);
  auto& list = cqs_[it->second.cluster_queue].admitted;
  const int slot = it->second.slot;  // O(1) swap-remove from the queue's list.
  list[slot] = list.back();
  list[slot]->slot = slot;
  list.pop_back();
  admitted_.erase(it);
  return Status::Ok();
}

Status GovernanceEngine::MarkEvicting(int64_t workload_id) {
  auto it = admitted_.find(workload_id);
  if (it == admitted_.end())
    return Status::NotFound(fmt::format("workload {} is not admitted", workload_id));
  it->second.evicting = true;
  return Status::Ok();
}

Status GovernanceEngine::ReportCheckpoint(int64_t workload_id, SimTime at) {
  auto it = admitted_.find(workload_id);
  if (it == admitted_.end())
    return Status::NotFound(fmt::format("workload {} is not admitted", workload_id));
  it->second.last_checkpoint = at;
  return Status::Ok();
}

Result<GovernanceEngine::QuotaEntry> GovernanceEngine::FindQuotaEntry(std::string_view cq,
                                                                      std::string_view flavor,
                                                                      std::string_view resource) {
  const int q = FindClusterQueue(cq);
  if (q < 0) return Status::NotFound(fmt::format("no ClusterQueue named '{}'", cq));
  // Every (flavor, resource) of the queue that matches, in the policy and in the engine's copy.
  QuotaEntry e;
  e.cq = q;
  std::vector<std::string> flavors;
  ClusterQueue* in_policy = &policy_.cluster_queues[q];  // Same index as cqs_ (Build).
  for (ClusterQueue* spec : {&cqs_[q].spec, in_policy})
    for (auto& g : spec->resource_groups)
      for (auto& fq : g.flavors) {
        if (!flavor.empty() && fq.flavor != flavor) continue;
        for (auto& rq : fq.resources)
          if (rq.resource == resource) {
            e.copies.push_back(&rq);
            if (spec == &cqs_[q].spec) flavors.push_back(fq.flavor);
          }
      }
  if (flavors.empty())
    return Status::NotFound(fmt::format("ClusterQueue {} has no quota for {}{}", cq, resource,
                                        flavor.empty() ? "" : " in flavor " + std::string(flavor)));
  if (flavors.size() > 1)
    return Status::InvalidArgument(
        fmt::format("ClusterQueue {} has {} in flavors {}: name the flavor", cq, resource,
                    fmt::join(flavors, ", ")));
  e.flavor = flavors[0];
  e.fr = Fr(FlavorIndex(e.flavor), ResourceIndex(resource));
  return e;
}

void GovernanceEngine::UpdateQuotaEntry(const QuotaEntry& e, const ResourceQuota& quota) {
  for (ResourceQuota* rq : e.copies) *rq = quota;
  tree_.UpdateQuota(cqs_[e.cq].node, e.fr, quota.nominal,
                    quota.borrowing_limit.value_or(kUnlimited),
                    quota.lending_limit.value_or(kUnlimited));
}

Status GovernanceEngine::SetNominalQuota(std::string_view cq, std::string_view flavor,
                                         std::string_view resource, Amount nominal) {
  if (FindClusterQueue(cq) >= 0 && nominal < 0)
    return Status::InvalidArgument(fmt::format("nominalQuota {} < 0", nominal));
  STEWARD_ASSIGN_OR_RETURN(QuotaEntry e, FindQuotaEntry(cq, flavor, resource));
  ResourceQuota quota = *e.copies[0];
  if (quota.lending_limit && nominal < *quota.lending_limit)
    return Status::InvalidArgument(fmt::format(
        "nominalQuota {} is below the lendingLimit {} of ClusterQueue {} ({}, {})",
        Canon(nominal, resource), Canon(*quota.lending_limit, resource), cq, e.flavor, resource));
  quota.nominal = nominal;
  UpdateQuotaEntry(e, quota);
  return Status::Ok();
}

Status GovernanceEngine::SetLendingLimit(std::string_view cq, std::string_view flavor,
                                         std::string_view resource,
                                         std::optional<Amount> lending_limit) {
  STEWARD_ASSIGN_OR_RETURN(QuotaEntry e, FindQuotaEntry(cq, flavor, resource));
  ResourceQuota quota = *e.copies[0];
  // Kueue's validation: a lendingLimit needs a cohort, and lies in [0, nominalQuota].
  if (lending_limit) {
    if (cqs_[e.cq].spec.cohort.empty())
      return Status::InvalidArgument(fmt::format(
          "ClusterQueue {}: a lendingLimit needs a cohort to lend to (it has none)", cq));
    if (*lending_limit < 0 || *lending_limit > quota.nominal)
      return Status::InvalidArgument(fmt::format(
          "lendingLimit {} of ClusterQueue {} ({}, {}) is not within [0, nominalQuota {}]",
          Canon(*lending_limit, resource), cq, e.flavor, resource, Canon(quota.nominal, resource)));
  }
  quota.lending_limit = lending_limit;
  UpdateQuotaEntry(e, quota);
  return Status::Ok();
}

WorkloadRequest PodGroupToRequest(const PodGroupSpec& pg, int64_t id) {
  WorkloadRequest req;
  req.id = id;
  req.name = pg.name;
  req.namespace_name = pg.namespace_name;
  req.cluster_queue = pg.queue;
  req.priority_class = pg.priority_class;
  req.min_member = pg.min_member;
  PodSetRequest ps;
  ps.name = "podgroup";
  ps.count = std::max<int32_t>(1, pg.min_member);
  for (const auto& [r, total] : pg.min_resources)
    ps.requests.push_back({r, (total + ps.count - 1) / ps.count});
  req.pod_sets.push_back(std::move(ps));
  return req;
}

}  // namespace steward::govern
