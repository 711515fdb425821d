// Simulate: Kueue's scheduling cycle over the governance engine (see simulate.h).
#include "govern/simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "govern/governance_engine.h"
#include "govern/partial_admission.h"

namespace steward::govern {
namespace {

constexpr int kCycleCap = 10000;

// kInvalid: refused by Kueue's resource validation; pending for good, never nominated.
enum class State { kPending, kAdmitted, kPreempted, kIgnored, kInvalid };

struct Item {
  const WorkloadObject* obj = nullptr;
  WorkloadRequest req;
  int cq = -1;  // Resolved ClusterQueue, -1 when resolution fails.
  int32_t priority = 0;
  State state = State::kPending;
  bool parked = false;  // BestEffortFIFO: inadmissible until quota is freed in the cohort.
  bool evaluated = false;
  Decision last;  // Last nomination (pending) or the admission decision (admitted).
  std::vector<int32_t> counts;
  std::string preempted_by, preemption_reason, preemption_message;
  std::string skip_message;  // Set when the last nomination was skipped in the cycle.
  int admitted_cycle = -1;
};

struct Entry {
  int item;
  WorkloadRequest req;  // Possibly with reduced counts (partial admission).
  Decision d;
};

class Simulator {
 public:
  Simulator(const SimulationInput& input, std::unique_ptr<GovernanceEngine> engine)
      : input_(input), engine_(std::move(engine)) {}

  Status Setup() {
    std::vector<const WorkloadObject*> sorted;
    for (const auto& w : input_.workloads) sorted.push_back(&w);
    std::sort(sorted.begin(), sorted.end(), [](const WorkloadObject* a, const WorkloadObject* b) {
      return std::tie(a->request.namespace_name, a->request.name) <
             std::tie(b->request.namespace_name, b->request.name);
    });
    for (const WorkloadObject* w : sorted) {
      Item it;
      it.obj = w;
      it.req = w->request;
      it.req.id = static_cast<int64_t>(items_.size()) + 1;
      it.priority = engine_->ResolvePriority(it.req);
      for (const auto& ps : it.req.pod_sets) it.counts.push_back(ps.count);
      auto cq = engine_->ResolveClusterQueue(it.req);
      it.cq = cq.ok() ? *cq : -1;
      AddPodsResource(it.cq, &it.req);
      base_ = std::max(base_, it.req.queue_timestamp);
      if (!w->quota_reserved_at.is_never()) base_ = std::max(base_, w->quota_reserved_at);
      if (w->finished)
        it.state = State::kIgnored;
      else if (!w->invalid.empty())
        it.state = State::kInvalid;
      items_.push_back(std::move(it));
    }
    for (Item& it : items_)
      if (it.state == State::kPending && it.obj->admission) STEWARD_RETURN_IF_ERROR(Restore(it));
    return Status::Ok();
  }

  int Run(int max_cycles) {
    const int cap = max_cycles > 0 ? std::min(max_cycles, kCycleCap) : kCycleCap;
    int cycle = 0;
    while (cycle < cap) {
      ++cycle;
      if (!Cycle(cycle)) break;
    }
    return cycle;
  }

  SimulationResult Outcome(int cycles) const;

 private:
  // Kueue counts pods as a resource when the ClusterQueue covers `pods`: each pod requests
  // one (flavorassigner.go sets the pod set's `pods` request to its count).
  void AddPodsResource(int cq, WorkloadRequest* req) const {
    if (cq < 0) return;
    bool covers = false;
    for (const ResourceGroup& g : engine_->policy().cluster_queues[cq].resource_groups)
      for (const std::string& r : g.covered_resources) covers |= r == "pods";
    if (!covers) return;
    for (PodSetRequest& ps : req->pod_sets) {
      std::erase_if(ps.requests, [](const ResourceRequest& r) { return r.resource == "pods"; });
      ps.requests.push_back({"pods", 1});
    }
  }

  // A workload already holding quota (status.admission).
  Status Restore(Item& it) {
    const WorkloadAdmission& a = *it.obj->admission;
    const int cq = engine_->FindClusterQueue(a.cluster_queue);
    if (cq < 0)
      return MakeInputError(it.obj->source.file, it.obj->source.line, 1,
                            fmt::format("Workload {}: status.admission.clusterQueue", it.req.name),
                            fmt::format("ClusterQueue {} does not exist", a.cluster_queue));
    Decision d;
    d.cluster_queue = a.cluster_queue;
    d.cluster_queue_index = cq;
    d.priority = it.priority;
    d.tier = engine_->ResolveTier(it.req);
    for (const auto& pa : a.pod_sets) {
      for (size_t i = 0; i < it.req.pod_sets.size(); ++i) {
        PodSetRequest& ps = it.req.pod_sets[i];
        if (ps.name != pa.name) continue;
        if (pa.count >= 0) ps.count = pa.count, it.counts[i] = pa.count;
        for (const auto& rr : ps.requests) {
          auto f = pa.flavors.find(rr.resource);
          if (f == pa.flavors.end() || rr.amount <= 0) continue;
          FlavorAssignment fa;
          fa.pod_set = static_cast<int>(i);
          fa.pod_set_name = ps.name;
          fa.resource = rr.resource;
          fa.flavor = f->second;
          fa.amount = rr.amount * ps.count;
          d.assignments.push_back(std::move(fa));
        }
      }
    }
    SimTime at =
        it.obj->quota_reserved_at.is_never() ? it.req.queue_timestamp : it.obj->quota_reserved_at;
    Status s = engine_->RestoreAdmission(it.req, d, at);
    if (!s.ok())
      return MakeInputError(it.obj->source.file, it.obj->source.line, 1,
                            fmt::format("Workload {}: status.admission", it.req.name), s.message());
    it.state = State::kAdmitted;
    it.last = std::move(d);
    it.admitted_cycle = 0;
    return Status::Ok();
  }

  // Queue order inside one ClusterQueue: priority, then timestamp, then name.
  bool QueueBefore(const Item& a, const Item& b) const {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.req.queue_timestamp != b.req.queue_timestamp)
      return a.req.queue_timestamp < b.req.queue_timestamp;
    return std::tie(a.req.namespace_name, a.req.name) < std::tie(b.req.namespace_name, b.req.name);
  }

  // Kueue's nomination: the full request, else (partial admission) the largest reduced counts
  // that are admissible (partial_admission.h, shared with the twin).
  Entry Nominate(int index, SimTime now) const {
    const Item& it = items_[index];
    Nomination n = NominateWithPartialAdmission(*engine_, it.req, it.obj->min_counts, now);
    return Entry{index, std::move(n.request), std::move(n.decision)};
  }

  std::vector<int> OrderEntries(std::vector<Entry>& entries) const {
    std::vector<int> order(entries.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    auto tail = [&](const Entry& a, const Entry& b) {
      const Item &ia = items_[a.item], &ib = items_[b.item];
      if (ia.priority != ib.priority) return ia.priority > ib.priority;
      if (ia.req.queue_timestamp != ib.req.queue_timestamp)
        return ia.req.queue_timestamp < ib.req.queue_timestamp;
      return std::tie(ia.req.namespace_name, ia.req.name) <
             std::tie(ib.req.namespace_name, ib.req.name);
    };
    std::sort(order.begin(), order.end(), [&](int x, int y) {
      const Entry &a = entries[x], &b = entries[y];
      const int la = a.d.borrows ? std::max(1, a.d.borrowing_level) : 0;
      const int lb = b.d.borrows ? std::max(1, b.d.borrowing_level) : 0;
      if (la != lb) return la < lb;
      return tail(a, b);
    });
    return order;
  }

  // Picks the next entry by Kueue's fair-sharing tournament (fair_sharing_iterator.go): at
  // every cohort, from the bottom up, the child (ClusterQueue or cohort) whose nominee leaves it
  // with the lowest share wins — within nominal before borrowing on the nominee's resources
  // (FairSharingPrioritizeNonBorrowing), then lowest share (two zero-weight borrowers, both
  // infinite, by their unweighted shares, as CompareDRS), then priority, then timestamp. Trees
  // and queues without a cohort are compared the same way one level above their roots, where
  // Kueue's order is unspecified.
  int NextFairEntry(const std::vector<Entry>& entries, const std::vector<char>& done) const {
    // Each entry's path from the top (the child of its root) down to its queue.
    std::vector<std::vector<QuotaTree::PathShare>> path(entries.size());
    std::vector<int> open;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (done[i]) continue;
      open.push_back(static_cast<int>(i));
      path[i] = engine_->FairSharingPath(entries[i].d);
      std::reverse(path[i].begin(), path[i].end());
      if (path[i].empty()) path[i].push_back({-1 - static_cast<int>(i)});  // No cohort.
    }
    auto fifo_before = [&](int a, int b) {
      const Item &ia = items_[entries[a].item], &ib = items_[entries[b].item];
      if (ia.priority != ib.priority) return ia.priority > ib.priority;
      return std::tie(ia.req.queue_timestamp, ia.req.namespace_name, ia.req.name) <
             std::tie(ib.req.queue_timestamp, ib.req.namespace_name, ib.req.name);
    };
    auto before_at = [&](int a, int b, size_t depth) {
      const QuotaTree::PathShare &sa = path[a][depth], &sb = path[b][depth];
      if (sa.borrowing != sb.borrowing) return !sa.borrowing;
      if (std::isinf(sa.share) && std::isinf(sb.share)) {
        if (sa.unweighted != sb.unweighted) return sa.unweighted < sb.unweighted;
      } else if (sa.share != sb.share) {
        return sa.share < sb.share;
      }
      return fifo_before(a, b);
    };
    // The winner among `group`, whose paths share their first `depth` nodes: each child at
    // `depth` nominates its own winner (recursively), and the nominees are compared there.
    std::function<int(const std::vector<int>&, size_t)> winner = [&](const std::vector<int>& group,
                                                                     size_t depth) {
      std::map<int, std::vector<int>> by_child;
      for (int i : group) by_child[path[i][depth].node].push_back(i);
      int best = -1;
      for (const auto& [child, members] : by_child) {
        std::vector<int> below, here;
        for (int m : members) (path[m].size() > depth + 1 ? below : here).push_back(m);
        int w = below.empty() ? -1 : winner(below, depth + 1);
        for (int m : here)
          if (w < 0 || fifo_before(m, w)) w = m;
        if (best < 0 || before_at(w, best, depth)) best = w;
      }
      return best;
    };
    return open.empty() ? -1 : winner(open, 0);
  }

  // Kueue's resourcesToReserve for a head that needs preemption but has no candidates.
  std::vector<Amount> Reservation(const Decision& d) const {
    std::vector<Amount> out(d.assignments.size(), 0);
    std::map<std::pair<std::string, std::string>, std::pair<Amount, size_t>> per_fr;
    for (size_t i = 0; i < d.assignments.size(); ++i) {
      auto& [total, first] =
          per_fr.try_emplace({d.assignments[i].flavor, d.assignments[i].resource}, Amount{0}, i)
              .first->second;
      total += d.assignments[i].amount;
    }
    for (const auto& [fr, v] : per_fr) {
      const auto& [flavor, resource] = fr;
      const Amount usage = engine_->Usage(d.cluster_queue, flavor, resource);
      const Amount nominal = engine_->Nominal(d.cluster_queue, flavor, resource);
      const Amount bl = engine_->BorrowingLimit(d.cluster_queue, flavor, resource);
      Amount r;
      if (d.borrows)
        r = bl == kUnlimited ? v.first : std::min(v.first, nominal + bl - usage);
      else
        r = std::max<Amount>(0, std::min(v.first, nominal - usage));
      out[v.second] = r;
    }
    return out;
  }

  static std::string Reasons(const Decision& d) {
    std::string out;
    for (const auto& r : d.reasons) {
      if (!out.empty()) out += "; ";
      out += r.message;
    }
    return out;
  }

  // One scheduling cycle; false when nothing changed.
  bool Cycle(int cycle) {
    const SimTime now = base_ + Seconds(cycle);
    const int ncq = engine_->num_cluster_queues();
    std::vector<int> head(ncq, -1);
    for (int i = 0; i < static_cast<int>(items_.size()); ++i) {
      const Item& it = items_[i];
      if (it.state == State::kAdmitted || it.state == State::kIgnored ||
          it.state == State::kInvalid || it.cq < 0 || it.parked)
        continue;
      if (head[it.cq] < 0 || QueueBefore(it, items_[head[it.cq]])) head[it.cq] = i;
    }
    std::vector<Entry> entries;
    for (int q = 0; q < ncq; ++q)
      if (head[q] >= 0) entries.push_back(Nominate(head[q], now));

    bool changed = false;
    std::vector<int64_t> issued;  // Preemption targets issued in this cycle.
    std::map<int64_t, std::pair<int, PreemptionReason>> victim_of;
    std::vector<std::pair<const Decision*, std::vector<Amount>>> reserved;
    auto process = [&](Entry& e) {
      Item& it = items_[e.item];
      it.evaluated = true;
      it.skip_message.clear();
      const Decision& d = e.d;
      if (d.mode == AdmissionMode::kFit) {
        if (engine_->Admit(e.req, d, now).ok()) {
          it.state = State::kAdmitted;
          it.req = e.req;
          for (size_t i = 0; i < it.req.pod_sets.size(); ++i)
            it.counts[i] = it.req.pod_sets[i].count;
          it.admitted_cycle = cycle;
          it.last = d;
          changed = true;
        } else {
          it.last = d;
          it.skip_message = "Workload no longer fits after processing another workload";
        }
        return;
      }
      it.last = d;
      if (d.mode == AdmissionMode::kNeedsPreemption) {
        std::vector<int64_t> targets;
        for (const auto& v : d.victims) targets.push_back(v.workload_id);
        bool overlap = std::any_of(targets.begin(), targets.end(), [&](int64_t id) {
          return std::find(issued.begin(), issued.end(), id) != issued.end();
        });
        if (overlap) {
          it.skip_message = "Workload has overlapping preemption targets with another workload";
          return;
        }
        std::vector<int64_t> without = issued;
        without.insert(without.end(), targets.begin(), targets.end());
        if (!engine_->FitsWithout(d, without)) {
          it.skip_message = "Workload no longer fits after processing another workload";
          return;
        }
        issued.insert(issued.end(), targets.begin(), targets.end());
        for (const auto& v : d.victims) victim_of[v.workload_id] = {e.item, v.reason};
        std::vector<Amount> amounts;
        for (const auto& a : d.assignments) amounts.push_back(a.amount);
        engine_->AddAssignmentUsage(d, amounts);
        reserved.emplace_back(&d, std::move(amounts));
        changed = true;
        return;
      }
      // Pending. A head that needs preemption without candidates holds its quota for the rest
      // of the cycle unless its queue can always reclaim.
      // (A pending decision keeps its assignments only when it needs preemption without
      // candidates.)
      if (d.mode == AdmissionMode::kNoFit && !d.assignments.empty() &&
          engine_->policy()
                  .cluster_queues[d.cluster_queue_index]
                  .preemption.reclaim_within_cohort != PreemptionPolicy::kAny) {
        std::vector<Amount> amounts = Reservation(d);
        engine_->AddAssignmentUsage(d, amounts);
        reserved.emplace_back(&d, std::move(amounts));
      }
      const bool strict = engine_->queueing_strategy(it.cq) == QueueingStrategy::kStrictFIFO;
      if (!strict || d.primary_reason() == PendingReason::kNamespaceMismatch) {
        it.parked = true;
        changed = true;
      }
    };
    if (engine_->options().fair_sharing) {
      std::vector<char> done(entries.size(), 0);
      for (size_t k = 0; k < entries.size(); ++k) {
        int next = NextFairEntry(entries, done);
        done[next] = 1;
        process(entries[next]);
      }
    } else {
      for (int k : OrderEntries(entries)) process(entries[k]);
    }
    for (auto& [d, amounts] : reserved) {
      std::vector<Amount> undo;
      for (Amount a : amounts) undo.push_back(-a);
      engine_->AddAssignmentUsage(*d, undo);
    }
    // Victims leave at the end of the cycle and are requeued at their eviction time; freed
    // quota makes the parked workloads of their cohort admissible again.
    for (int64_t id : issued) {
      Item& v = items_[id - 1];
      const int vcq = engine_->FindAdmitted(id)->cluster_queue;
      (void)engine_->Release(id);
      v.state = State::kPreempted;
      const auto& [by, reason] = victim_of[id];
      v.preempted_by = items_[by].req.namespace_name + "/" + items_[by].req.name;
      v.preemption_reason = std::string(PreemptionReasonName(reason));
      v.preemption_message = fmt::format("Preempted to accommodate a workload ({}) due to {}",
                                         v.preempted_by, v.preemption_reason);
      v.req = v.obj->request;
      v.req.id = id;
      AddPodsResource(v.cq, &v.req);
      for (size_t i = 0; i < v.req.pod_sets.size(); ++i) v.counts[i] = v.req.pod_sets[i].count;
      v.req.queue_timestamp = now;
      v.parked = false;
      v.evaluated = false;
      for (int q : engine_->CohortQueues(vcq))
        for (Item& other : items_)
          if (other.cq == q) other.parked = false;
    }
    return changed;
  }

  const SimulationInput& input_;
  std::unique_ptr<GovernanceEngine> engine_;
  std::vector<Item> items_;
  SimTime base_ = SimTime::FromMicros(0);
};

SimulationResult Simulator::Outcome(int cycles) const {
  SimulationResult r;
  r.cycles = cycles;
  r.fair_sharing = engine_->options().fair_sharing;
  // StrictFIFO heads at the end, for "blocked behind" messages.
  std::vector<int> head(engine_->num_cluster_queues(), -1);
  for (int i = 0; i < static_cast<int>(items_.size()); ++i) {
    const Item& it = items_[i];
    if ((it.state == State::kPending || it.state == State::kPreempted) && it.cq >= 0 &&
        !it.parked && (head[it.cq] < 0 || QueueBefore(it, items_[head[it.cq]])))
      head[it.cq] = i;
  }
  const SimTime now = base_ + Seconds(cycles + 1);
  for (int i = 0; i < static_cast<int>(items_.size()); ++i) {
    const Item& it = items_[i];
    if (it.state == State::kIgnored) continue;
    SimulatedWorkload w;
    w.name = it.req.name;
    w.namespace_name = it.req.namespace_name;
    w.cluster_queue = it.cq >= 0 ? engine_->ClusterQueueName(it.cq) : "";
    w.preempted_by = it.preempted_by;
    if (it.state == State::kAdmitted) {
      w.state = "admitted";
      w.cluster_queue = it.last.cluster_queue;
      w.admitted_in_cycle = it.admitted_cycle;
      for (size_t p = 0; p < it.req.pod_sets.size(); ++p) {
        SimulatedWorkload::PodSetFlavors f;
        f.pod_set = it.req.pod_sets[p].name;
        f.count = it.counts[p];
        for (const auto& a : it.last.assignments)
          if (a.pod_set == static_cast<int>(p)) f.flavors[a.resource] = a.flavor;
        w.flavors.push_back(std::move(f));
      }
      w.message = it.admitted_cycle == 0 ? "admitted before the simulation"
                                         : fmt::format("admitted in cycle {}", it.admitted_cycle);
      if (!it.preempted_by.empty())
        w.message += fmt::format(" (after being preempted by {})", it.preempted_by);
    } else if (it.state == State::kInvalid) {
      w.state = "pending";
      w.reason = "invalid_resources";
      w.message = it.obj->invalid;
    } else if (it.state == State::kPreempted && !it.evaluated) {
      w.state = "preempted";
      w.reason = it.preemption_reason;
      w.message = it.preemption_message;
    } else {
      w.state = it.state == State::kPreempted ? "preempted" : "pending";
      const bool strict =
          it.cq >= 0 && engine_->queueing_strategy(it.cq) == QueueingStrategy::kStrictFIFO;
      Decision d = it.evaluated ? it.last : engine_->TryAdmit(it.req, now);
      std::string why;
      if (strict && head[it.cq] >= 0 && head[it.cq] != i && !it.parked) {
        const Item& h = items_[head[it.cq]];
        why = fmt::format("StrictFIFO: behind the head {}/{} of ClusterQueue {}",
                          h.req.namespace_name, h.req.name, w.cluster_queue);
        if (w.state == "pending") w.reason = "blocked_behind_head";
      } else {
        if (w.state == "pending") w.reason = std::string(PendingReasonName(d.primary_reason()));
        why = !it.skip_message.empty() ? it.skip_message : Reasons(d);
      }
      if (w.state == "preempted") {
        w.reason = it.preemption_reason;
        w.message = it.preemption_message + "; pending again: " + why;
      } else {
        w.message = why;
      }
    }
    r.workloads.push_back(std::move(w));
  }
  std::map<std::string, SimulatedQueue> queues;
  for (const QuotaStatus& s : engine_->QuotaStatuses()) {
    SimulatedQueue& q = queues[s.cluster_queue];
    q.name = s.cluster_queue;
    q.usage.push_back({s.flavor, s.resource, s.usage, s.nominal, s.borrowed});
  }
  for (auto& [name, q] : queues) {
    const int cq = engine_->FindClusterQueue(name);
    q.weighted_share = ReportedWeightedShare(engine_->DominantResourceShare(cq));
    r.cluster_queues.push_back(std::move(q));
  }
  return r;
}

}  // namespace

int64_t ReportedWeightedShare(double share) {
  if (std::isinf(share)) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::ceil(share));
}

Result<SimulationResult> Simulate(const SimulationInput& input, const SimulateOptions& options) {
  // Declaration order must not matter: every list the engine indexes is sorted by name.
  Policy policy = input.policy;
  auto by_name = [](auto& v) {
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.name < b.name; });
  };
  by_name(policy.flavors);
  by_name(policy.cohorts);
  by_name(policy.cluster_queues);
  by_name(policy.priority_classes);
  std::stable_sort(policy.local_queues.begin(), policy.local_queues.end(),
                   [](const LocalQueue& a, const LocalQueue& b) {
                     return std::tie(a.namespace_name, a.name) < std::tie(b.namespace_name, b.name);
                   });
  EngineOptions eo;
  eo.victim_ordering = "kueue-classic";
  eo.enforce_tiers = false;
  eo.preempt_mode_without_policy = true;
  eo.kueue_borrowing_height = true;
  eo.fair_sharing = policy.configuration && policy.configuration->fair_sharing;
  STEWARD_ASSIGN_OR_RETURN(auto engine, GovernanceEngine::Create(policy, eo));
  Simulator sim(input, std::move(engine));
  STEWARD_RETURN_IF_ERROR(sim.Setup());
  const int cycles = sim.Run(options.max_cycles);
  return sim.Outcome(cycles);
}

}  // namespace steward::govern
