// Admission through the governance engine: the twin keeps Kueue's pending queues (one heap
// per ClusterQueue ordered by priority, then queue time), the engine decides quota,
// borrowing and preemption, and the twin places. See docs/governance.md for the rules.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "govern/governance_engine.h"
#include "govern/partial_admission.h"
#include "govern/pods_ready_tracker.h"
#include "govern/policy.h"
#include "govern/policy_io.h"
#include "twin/admitter.h"

namespace steward::twin {
namespace {

constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kGpuProductLabel = "nvidia.com/gpu.product";
constexpr int64_t kBytesPerMib = int64_t{1} << 20;

// Priority when the workload's class is not in the policy: the guide's tiers.
int32_t DefaultPriority(model::Tier tier) {
  switch (tier) {
    case model::Tier::kProduction:
      return 10000;
    case model::Tier::kTraining:
      return 500;
    case model::Tier::kDev:
      return 10;
  }
  return 0;
}

class KueueAdmitter final : public Admitter {
 public:
  KueueAdmitter(std::unique_ptr<govern::GovernanceEngine> engine,
                std::optional<govern::PodsReadyOptions> pods_ready,
                govern::RequeueTimestamp requeue_timestamp, std::vector<std::string> gpu_products)
      : engine_(std::move(engine)),
        queues_(engine_->num_cluster_queues()),
        stats_(engine_->num_cluster_queues()),
        gpu_products_(std::move(gpu_products)),
        requeue_timestamp_(requeue_timestamp) {
    if (pods_ready) pods_ready_.emplace(*pods_ready);
    // Flavors that name a GPU product (Kueue's per-GPU-model ResourceFlavors).
    for (const auto& f : engine_->policy().flavors) {
      auto label = f.node_labels.find(kGpuProductLabel);
      if (label == f.node_labels.end()) continue;
      for (size_t m = 0; m < gpu_products_.size(); ++m)
        if (gpu_products_[m] == label->second) flavor_model_[f.name] = static_cast<int>(m);
    }
  }

  bool Started(const model::Workload& w) override {
    if (!pods_ready_) return false;
    const bool was_blocked = pods_ready_->AdmissionBlocked();
    pods_ready_->OnPodsReady(w.id);
    if (!was_blocked || pods_ready_->AdmissionBlocked()) return false;
    Requeue();  // blockAdmission lifted: every queue may admit again.
    return true;
  }

  std::string_view Name() const override { return "kueue"; }

  void Enqueue(model::WorkloadId id, int team) override {
    (void)team;
    // The host has just set its reason (waiting): newer than any domination stamp.
    Written(id, ++pass_);
    pending_enqueue_.push_back(id);
  }

  // Dominated workloads of BestEffortFIFO queues get their reasons lazily (see Stamp); every
  // reader of reasons reads after this.
  void FlushPendingReasons(AdmissionHost& host) override {
    for (CqQueue& q : queues_) {
      for (const auto& [shape, st] : q.stamps) {
        const std::set<Entry>& set = q.shapes[shape];
        for (auto it = set.lower_bound(st.from); it != set.end(); ++it)
          if (it->seq < st.limit && WrittenAt(it->id) < st.pass) {
            host.SetPendingReason(it->id, st.reason, *st.detail);
            inadmissible_.insert(it->id);
            Written(it->id, st.pass);
          }
      }
      q.stamps.clear();
      if (q.blocked) {
        const Stamp& st = *q.blocked;
        for (auto it = q.entries.upper_bound(st.from); it != q.entries.end(); ++it)
          if (it->seq < st.limit && WrittenAt(it->id) < st.pass) {
            host.SetPendingReason(it->id, st.reason, *st.detail);
            Written(it->id, st.pass);
          }
        q.blocked.reset();
      }
    }
  }

  void Released(const model::Workload& w, int gpus, bool all) override {
    used_by_team_[w.team] -= gpus;
    // Freed nodes may let workloads that passed quota but found no node in.
    for (size_t cq = 0; cq < queues_.size(); ++cq)
      if (queues_[cq].placement_blocked) MarkDirty(static_cast<int>(cq));
    // A service admitted replica by replica gives back one charge per replica released.
    if (auto r = replicas_.find(w.id); r != replicas_.end()) {
      const int per_pod = w.pod_sets[0].gpus_per_pod;
      const size_t n =
          all ? r->second.size()
              : std::min(r->second.size(), static_cast<size_t>(per_pod > 0 ? gpus / per_pod : 0));
      int cq = -1;
      for (size_t i = 0; i < n; ++i) {
        const int64_t charge = r->second.back();
        r->second.pop_back();
        if (const govern::AdmittedWorkload* a = engine_->FindAdmitted(charge))
          cq = a->cluster_queue;
        (void)engine_->Release(charge);
        replica_owner_.erase(charge);
      }
      if (r->second.empty()) replicas_.erase(r);
      if (cq >= 0) MarkCohortDirty(cq);
      return;
    }
    // Services keep their admitted quota (reserved at max replicas) while they live.
    if (!all || !admitted_.count(w.id)) return;
    const govern::AdmittedWorkload* a = engine_->FindAdmitted(w.id);
    const int cq = a ? a->cluster_queue : -1;
    admitted_.erase(w.id);
    (void)engine_->Release(w.id);
    if (pods_ready_) {
      const bool was_blocked = pods_ready_->AdmissionBlocked();
      pods_ready_->OnRemoved(w.id);
      if (was_blocked && !pods_ready_->AdmissionBlocked()) Requeue();
    }
    // Freed quota: Kueue requeues the inadmissible workloads of the whole cohort.
    if (cq >= 0) MarkCohortDirty(cq);
  }

  void Requeue() override {
    for (size_t cq = 0; cq < queues_.size(); ++cq) MarkDirty(static_cast<int>(cq));
  }

  int used_gpus(int team) const override {
    auto it = used_by_team_.find(team);
    return it == used_by_team_.end() ? 0 : it->second;
  }

  SchedulerReport Scheduler() const override {
    SchedulerReport r;
    const auto& specs = engine_->policy().cluster_queues;  // Engine queue index = policy index.
    for (int cq = 0; cq < engine_->num_cluster_queues(); ++cq) {
      ClusterQueueReport q;
      q.name = specs[cq].name;
      q.cohort = specs[cq].cohort;
      q.queueing_strategy = std::string(govern::QueueingStrategyName(specs[cq].queueing_strategy));
      for (const Entry& e : queues_[cq].entries)
        (inadmissible_.count(e.id) ? q.pending_inadmissible : q.pending_active)++;
      q.reserving_workloads = engine_->AdmittedCount(cq);
      q.admitted_workloads_total = stats_[cq].admitted;
      q.evicted_workloads_total = stats_[cq].evicted;
      q.preempted_workloads_total = stats_[cq].preempted;
      q.weighted_share = engine_->DominantResourceShare(cq);
      q.admission_wait = stats_[cq].wait;
      r.cluster_queues.push_back(std::move(q));
    }
    for (const govern::QuotaStatus& st : engine_->QuotaStatuses()) {
      const int cq = engine_->FindClusterQueue(st.cluster_queue);
      auto canon = [&](govern::Amount a) { return govern::CanonicalValue(a, st.resource); };
      auto limit = [&](govern::Amount a) {
        return a == govern::kUnlimited ? std::nullopt : std::optional<double>(canon(a));
      };
      QuotaUsage u;
      u.flavor = st.flavor;
      u.resource = st.resource;
      u.nominal = canon(st.nominal);
      u.borrowing_limit = limit(st.borrowing_limit);
      u.lending_limit = limit(st.lending_limit);
      u.usage = canon(st.usage);
      u.borrowed = canon(st.borrowed);
      u.available = canon(st.available);
      u.max_usable = canon(st.max_usable);
      r.cluster_queues[cq].quotas.push_back(std::move(u));
    }
    return r;
  }

  std::string ClusterQueueFor(std::string_view ns, std::string_view queue) const override {
    govern::WorkloadRequest r;
    r.namespace_name = std::string(ns);
    r.local_queue = std::string(queue);
    Result<int> cq = engine_->ResolveClusterQueue(r);
    if (cq.ok()) return engine_->ClusterQueueName(*cq);
    // Volcano: a workload names its Queue (a ClusterQueue of that name) directly.
    const int direct = engine_->FindClusterQueue(queue);
    return direct >= 0 ? engine_->ClusterQueueName(direct) : std::string();
  }

  Admission AdmissionOf(model::WorkloadId id) const override {
    Admission a;
    const auto r = replicas_.find(id);  // Per replica: where its replicas hold quota.
    const govern::AdmittedWorkload* w =
        engine_->FindAdmitted(r == replicas_.end() ? id : r->second.front());
    if (!w) return a;
    a.cluster_queue = engine_->ClusterQueueName(w->cluster_queue);
    for (const auto& [fr, amount] : w->usage) {
      if (amount <= 0) continue;
      const auto [flavor, resource] = engine_->FlavorResource(fr);
      a.flavors.emplace_back(std::string(resource), std::string(flavor));
    }
    return a;
  }
  const govern::Policy* policy() const override { return &engine_->policy(); }

  Status SetClusterQueueQuota(std::string_view cq, std::string_view flavor, int gpus) override {
    STEWARD_RETURN_IF_ERROR(engine_->SetNominalQuota(cq, flavor, kGpu, gpus));
    MarkCohortDirty(engine_->FindClusterQueue(cq));
    return Status::Ok();
  }
  Status SetClusterQueueLendingLimit(std::string_view cq, std::string_view flavor,
                                     std::optional<int> gpus) override {
    STEWARD_RETURN_IF_ERROR(engine_->SetLendingLimit(
        cq, flavor, kGpu, gpus ? std::optional<govern::Amount>(*gpus) : std::nullopt));
    MarkCohortDirty(engine_->FindClusterQueue(cq));
    return Status::Ok();
  }

  // One cycle. Only "dirty" queues are looked at: a queue gets dirty when a workload joins it,
  // when quota is freed or changed anywhere in its cohort, or (if some of its workloads found
  // no node) when pods are released — Kueue's rule for requeueing inadmissible workloads, so a
  // cycle costs what changed, not what waits. Kueue admits workloads that fit in their queue's
  // nominal quota before any that borrow, so a lender's own work comes before a borrower's:
  // pass 1 skips borrowers, pass 2 takes them.
  void Cycle(AdmissionHost& host) override {
    ExpirePodsReady(host);
    DrainEnqueued(host);
    while (!timers_.empty() && timers_.top().first <= host.Now().micros()) {
      MarkDirty(timers_.top().second);
      timers_.pop();
    }
    if (dirty_list_.empty()) return;
    std::vector<int> cqs;
    cqs.swap(dirty_list_);
    std::sort(cqs.begin(), cqs.end());  // Deterministic order: queue index.
    for (int cq : cqs) {
      queues_[cq].dirty = false;
      queues_[cq].placement_blocked = false;
    }
    for (bool allow_borrow : {false, true})
      for (int cq : cqs) ProcessQueue(host, cq, allow_borrow);
  }

 private:
  struct Entry {
    int32_t priority;
    int64_t queued_at;
    model::WorkloadId id;
    uint64_t seq = 0;  // Insertion order (not part of the order): what a stamp covers.
    bool operator<(const Entry& o) const {
      if (priority != o.priority) return priority > o.priority;
      if (queued_at != o.queued_at) return queued_at < o.queued_at;
      return id < o.id;
    }
  };
  // What makes one workload dominate another (Failure): the same GPU model, and pods, GPUs,
  // CPU and memory per pod. Workloads of one shape in a queue are dominated together.
  // (gpu_model, pods, gpus_per_pod, cpu_milli, memory_mib).
  using Shape = std::tuple<int, int, int, int64_t, int64_t>;
  // A BestEffortFIFO pass found that from entry `from` on, every entry of one shape that was
  // queued then (seq < limit) is dominated by the same failure for the rest of the pass. The
  // pass does not visit them; their reason (and inadmissible mark) is set when the reasons are
  // read (FlushPendingReasons), unless one was written later (WrittenAt >= pass). So a long
  // queue costs its shapes per pass, not its workloads.
  struct Stamp {
    Entry from;
    uint64_t limit = 0;
    uint64_t pass = 0;
    std::string_view reason;
    std::shared_ptr<const std::string> detail;
  };
  struct CqQueue {
    std::set<Entry> entries;  // Kueue's heap order: priority, then queue time.
    // The same entries split by shape (workloads with one pod set that are not services), and
    // the rest (never dominated).
    std::map<Shape, std::set<Entry>> shapes;
    std::set<Entry> others;
    std::map<Shape, Stamp> stamps;  // Since the last flush, the latest per shape.
    // StrictFIFO: the workloads behind a head that was not admitted (after `from`, the head)
    // are blocked behind it; written lazily like the stamps above, but not inadmissible.
    std::optional<Stamp> blocked;
    bool dirty = false;
    bool placement_blocked = false;  // Some entry passed quota but found no node.
  };
  enum class Outcome { kAdmitted, kBorrowsLater, kFailed };
  // A failed attempt whose outcome a later workload of the same queue cannot beat: same GPU
  // model, at least as many pods and as much GPU, CPU and memory per pod, no higher priority (queue
  // order guarantees it) — it cannot fit where this one did not, nor find more victims.
  struct Failure {
    Shape shape;
    std::string_view reason;
    std::string detail;
    std::string name;
    // What every workload it dominates is told, formatted once.
    std::shared_ptr<const std::string> dominated_detail;
  };

  // waitForPodsReady: evicts admitted workloads whose pods did not all run in time; each is
  // requeued after its backoff (or deactivated past backoffLimitCount).
  void ExpirePodsReady(AdmissionHost& host) {
    if (!pods_ready_) return;
    for (const govern::PodsReadyEviction& e : pods_ready_->Expire(host.Now())) {
      const auto id = static_cast<model::WorkloadId>(e.workload_id);
      const govern::AdmittedWorkload* a = engine_->FindAdmitted(id);
      if (a) stats_[a->cluster_queue].evicted["PodsReadyTimeout"]++;
      requeue_[id] = e;
      host.EvictPodsReadyTimeout(id);  // Released() frees the quota; Enqueue() requeues.
    }
    engine_->SetAdmissionBlocked(pods_ready_->AdmissionBlocked());
    const SimTime next = pods_ready_->NextDeadline();
    if (!next.is_never()) host.RequestCycleAt(next);
  }

  // Makes `cq` dirty at `t` and asks the host for a cycle then.
  void WakeAt(AdmissionHost& host, SimTime t, int cq) {
    if (cq < 0) return;
    timers_.emplace(t.micros(), cq);
    host.RequestCycleAt(t);
  }

  void MarkDirty(int cq) {
    if (queues_[cq].dirty) return;
    queues_[cq].dirty = true;
    dirty_list_.push_back(cq);
  }
  void MarkCohortDirty(int cq) {
    for (int other : engine_->CohortQueues(cq)) MarkDirty(other);
  }

  // Tries the queue's workloads in order. StrictFIFO stops at the first one that is not
  // admitted: everything behind it waits for it (Kueue keeps it at the head). BestEffortFIFO
  // goes on past it (Kueue parks it as inadmissible).
  void ProcessQueue(AdmissionHost& host, int cq, bool allow_borrow) {
    if (engine_->queueing_strategy(cq) != govern::QueueingStrategy::kStrictFIFO)
      return ProcessBestEffort(host, cq, allow_borrow);
    auto& q = queues_[cq].entries;
    const uint64_t pass = ++pass_;
    for (auto it = q.begin(); it != q.end();) {
      const Entry e = *it;
      const Outcome o = TryOne(host, e.id, allow_borrow);
      if (o == Outcome::kAdmitted) {
        ++it;
        Erase(cq, e);
        continue;
      }
      if (o == Outcome::kBorrowsLater) {
        // The head borrows: the second pass takes it. Not tried now, so what blocked it in an
        // earlier pass still holds for it.
        MaterializeBlocked(host, queues_[cq], e);
        return;
      }
      Written(e.id, pass);
      BlockBehindHead(host, cq, e, pass);
      return;
    }
  }

  // BestEffortFIFO: every workload in queue order, except that a workload dominated by an
  // earlier failure of this pass is not tried. Shapes are walked side by side in queue order
  // (a merge); once a shape's next workload is dominated, the rest of that shape is stamped
  // and leaves the walk. Same attempts, in the same order, as a walk of every entry.
  void ProcessBestEffort(AdmissionHost& host, int cq, bool allow_borrow) {
    CqQueue& q = queues_[cq];
    const uint64_t pass = ++pass_;
    std::vector<Failure> failures;
    struct Cursor {
      const Shape* shape;  // nullptr: the others.
      std::set<Entry>* set;
      std::set<Entry>::iterator it;
    };
    std::vector<Cursor> cursors;
    for (auto& [shape, set] : q.shapes)
      if (!set.empty()) cursors.push_back({&shape, &set, set.begin()});
    if (!q.others.empty()) cursors.push_back({nullptr, &q.others, q.others.begin()});
    std::vector<int> heap(cursors.size());
    for (size_t i = 0; i < heap.size(); ++i) heap[i] = static_cast<int>(i);
    auto after = [&](int a, int b) { return *cursors[b].it < *cursors[a].it; };
    std::make_heap(heap.begin(), heap.end(), after);
    std::vector<Entry> moved;  // Failed with another GPU model than it was queued under.
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), after);
      const int c = heap.back();
      heap.pop_back();
      Cursor& k = cursors[c];
      const Entry e = *k.it;
      if (k.shape) {
        if (const Failure* f = Dominating(host, failures, e.id)) {
          q.stamps[*k.shape] = Stamp{e, next_seq_, pass, f->reason, f->dominated_detail};
          continue;  // The rest of this shape waits as f does.
        }
      }
      ++k.it;
      const Outcome o = TryOne(host, e.id, allow_borrow);
      if (o == Outcome::kAdmitted) {
        Erase(cq, e);
      } else if (o == Outcome::kBorrowsLater) {
        // Not tried now (no reason written): a stamp of an earlier pass still holds for it.
        Materialize(host, q, e);
        if (k.shape && ShapeOf(host.workload(e.id)) != *k.shape) moved.push_back(e);
      } else {
        Written(e.id, pass);
        inadmissible_.insert(e.id);
        const model::Workload& w = host.workload(e.id);
        // Only a failure of one pod set without extended resources dominates: the shape
        // describes pod set 0's pods, GPUs, CPU and memory alone. A failure with a min count
        // tried its full count first, so it still dominates by that count.
        if (w.kind != model::WorkloadKind::kInference && w.pod_sets.size() == 1 &&
            w.pod_sets[0].extended_resources.empty()) {
          failures.push_back(
              Failure{ShapeOf(w), last_reason_, last_detail_, w.name,
                      std::make_shared<const std::string>(fmt::format(
                          "as {} (same queue, no smaller request): {}", w.name, last_detail_))});
        }
        if (k.shape && ShapeOf(w) != *k.shape) moved.push_back(e);
      }
      if (k.it != k.set->end()) {
        heap.push_back(c);
        std::push_heap(heap.begin(), heap.end(), after);
      }
    }
    // After the walk, so that no workload is visited twice in one pass.
    for (const Entry& e : moved) {
      Unlink(cq, e);
      Insert(host, cq, e);
    }
  }

  static Shape ShapeOf(const model::Workload& w) {
    const model::PodSet& ps = w.pod_sets[0];
    return {w.gpu_model, ps.count, ps.gpus_per_pod, ps.cpu_milli, ps.memory_mib};
  }
  // Workloads with extended resources stay out of the shape index (the shape does not compare
  // them), and so do those with a min count, which may fit reduced where a same-shape one
  // without did not: they are never dominated (always tried).
  static bool HasShape(const model::Workload& w) {
    return w.kind != model::WorkloadKind::kInference && w.pod_sets.size() == 1 &&
           w.pod_sets[0].extended_resources.empty() && w.pod_sets[0].min_count == 0;
  }
  void Insert(const AdmissionHost& host, int cq, const Entry& e) {
    CqQueue& q = queues_[cq];
    q.entries.insert(e);
    const model::Workload& w = host.workload(e.id);
    if (HasShape(w)) {
      q.shapes[ShapeOf(w)].insert(e);
      shape_of_[e.id] = ShapeOf(w);
    } else {
      q.others.insert(e);
    }
  }
  // Takes `e` out of its queue's sets (admitted: Erase; moving to another shape: Insert next).
  void Unlink(int cq, const Entry& e) {
    CqQueue& q = queues_[cq];
    q.entries.erase(e);
    if (q.others.erase(e) == 0) {
      auto s = shape_of_.find(e.id);
      if (s != shape_of_.end()) {
        q.shapes[s->second].erase(e);
        shape_of_.erase(s);
      }
    }
  }
  void Erase(int cq, const Entry& e) {
    Unlink(cq, e);
    queued_.erase(e.id);
    inadmissible_.erase(e.id);
  }
  // Applies the stamp that covers `e` now, as an eager pass would have.
  void Materialize(AdmissionHost& host, CqQueue& q, const Entry& e) {
    auto s = shape_of_.find(e.id);
    if (s == shape_of_.end()) return;
    auto st = q.stamps.find(s->second);
    if (st == q.stamps.end()) return;
    const Stamp& stamp = st->second;
    if (e.seq >= stamp.limit || e < stamp.from || WrittenAt(e.id) >= stamp.pass) return;
    host.SetPendingReason(e.id, stamp.reason, *stamp.detail);
    inadmissible_.insert(e.id);
    Written(e.id, pass_);
  }
  uint64_t WrittenAt(model::WorkloadId id) const {
    return static_cast<size_t>(id) < written_.size() ? written_[id] : 0;
  }
  void Written(model::WorkloadId id, uint64_t pass) {
    if (static_cast<size_t>(id) >= written_.size()) written_.resize(id + 1, 0);
    written_[id] = pass;
  }

  const Failure* Dominating(const AdmissionHost& host, const std::vector<Failure>& failures,
                            model::WorkloadId id) const {
    if (failures.empty()) return nullptr;
    const model::Workload& w = host.workload(id);
    if (w.kind == model::WorkloadKind::kInference || w.pod_sets.size() != 1) return nullptr;
    // Dominated: the same GPU model and no smaller request in any dimension.
    const auto [gpu_model, pods, gpus, cpu, memory] = ShapeOf(w);
    for (const Failure& f : failures) {
      const auto& [f_model, f_pods, f_gpus, f_cpu, f_memory] = f.shape;
      if (f_model == gpu_model && pods >= f_pods && gpus >= f_gpus && cpu >= f_cpu &&
          memory >= f_memory)
        return &f;
    }
    return nullptr;
  }

  // StrictFIFO: the head was not admitted, so no workload behind it is tried (Kueue: it stays
  // the head every cycle). Each gets the head's reason, prefixed by who blocks it.
  // Every workload behind it gets this reason, written lazily (FlushPendingReasons).
  void BlockBehindHead(AdmissionHost& host, int cq, const Entry& head, uint64_t pass) {
    queues_[cq].blocked = Stamp{head, next_seq_, pass, "blocked_behind_head",
                                std::make_shared<const std::string>(fmt::format(
                                    "StrictFIFO queue {}: behind its head {}, not admitted: {}: {}",
                                    engine_->ClusterQueueName(cq), host.workload(head.id).name,
                                    last_reason_, last_detail_))};
  }
  void MaterializeBlocked(AdmissionHost& host, CqQueue& q, const Entry& e) {
    if (!q.blocked) return;
    const Stamp& st = *q.blocked;
    if (e.seq >= st.limit || !(st.from < e) || WrittenAt(e.id) >= st.pass) return;
    host.SetPendingReason(e.id, st.reason, *st.detail);
    Written(e.id, pass_);
  }

  // The PodGroup a workload names, or nullptr: in its namespace, else by name alone.
  const govern::PodGroupSpec* FindPodGroup(const model::Workload& w) const {
    const govern::PodGroupSpec* by_name = nullptr;
    for (const auto& pg : engine_->policy().pod_groups) {
      if (pg.name != w.pod_group) continue;
      if (pg.namespace_name == w.namespace_name) return &pg;
      if (!by_name) by_name = &pg;
    }
    return by_name;
  }

  govern::WorkloadRequest Request(const AdmissionHost& host, model::WorkloadId id) const {
    const model::Workload& w = host.workload(id);
    govern::WorkloadRequest r;
    const govern::PodGroupSpec* pg = w.pod_group.empty() ? nullptr : FindPodGroup(w);
    if (pg) {
      // Volcano: the PodGroup's queue, minMember and minResources govern admission.
      r = govern::PodGroupToRequest(*pg, id);
    } else {
      r.id = id;
      r.namespace_name = w.namespace_name;
      r.local_queue = w.queue;
      r.priority_class = w.priority_class;
      for (const auto& ps : w.pod_sets) {
        govern::PodSetRequest p;
        p.name = ps.name;
        // A service is admitted once at its peak size; replicas then follow demand inside it.
        p.count = w.kind == model::WorkloadKind::kInference ? w.max_replicas : ps.count;
        p.requests.push_back({kGpu, ps.gpus_per_pod});
        // CPU and memory count against quota only when the pod asks for them, as a pod without
        // requests does in Kueue; a ClusterQueue that covers neither then blocks the workload
        // (BlockUndeclared), exactly as `policy simulate` decides on the same Workload.
        if (ps.cpu_milli > 0) p.requests.push_back({"cpu", ps.cpu_milli});
        if (ps.memory_mib > 0) p.requests.push_back({"memory", ps.memory_mib * kBytesPerMib});
        for (const auto& [name, count] : ps.extended_resources) p.requests.push_back({name, count});
        // A workload that needs one GPU model selects its nodes by product label: flavors
        // labelled with another product are skipped (Kueue's NoMatchingFlavor).
        if (w.gpu_model >= 0 && w.gpu_model < static_cast<int>(gpu_products_.size()) &&
            !pinned_.count(id))
          p.node_selector[kGpuProductLabel] = gpu_products_[w.gpu_model];
        r.pod_sets.push_back(std::move(p));
      }
      // Volcano has no LocalQueues: a workload names its Queue (PodGroup spec.queue) directly.
      if (!engine_->ResolveClusterQueue(r).ok() && engine_->FindClusterQueue(w.queue) >= 0)
        r.cluster_queue = w.queue;
    }
    r.name = w.name;
    r.tier = w.tier;
    if (!engine_->policy().FindPriorityClass(r.priority_class))
      r.priority = DefaultPriority(w.tier);
    r.queue_timestamp = w.submit_time;
    if (auto it = requeue_.find(id); it != requeue_.end()) {
      // Kueue's requeueState: not admissible before requeueAt; with timestamp Eviction the
      // workload goes to the back of its queue.
      r.requeue_at = it->second.requeue_at;
      r.active = !it->second.deactivated;
      if (requeue_timestamp_ == govern::RequeueTimestamp::kEviction)
        r.queue_timestamp = it->second.evicted_at;
    }
    r.checkpoint_interval = w.checkpoint_interval;
    r.restore_time = w.restore_time;
    // Pods created one by one: the gang is incomplete until minMember of them exist (Volcano's
    // NotEnoughTasks; without a PodGroup every pod is a member).
    if (w.pod_interval.micros() > 0 && w.kind != model::WorkloadKind::kInference) {
      r.min_member = pg ? pg->min_member : w.TotalPods();
      r.available_pods = static_cast<int32_t>(
          std::min<int64_t>(w.TotalPods(), 1 + (host.Now() - w.submit_time) / w.pod_interval));
    }
    return r;
  }

  // Moves newly pending workloads into their ClusterQueue's heap (or marks them
  // misconfigured when their LocalQueue does not resolve).
  void DrainEnqueued(AdmissionHost& host) {
    for (model::WorkloadId id : pending_enqueue_) {
      if (queued_.count(id)) continue;
      if (admitted_.count(id)) {
        // A service scaling up: its quota is held; it only needs placement.
        bool done = false;
        used_by_team_[host.workload(id).team] += host.TryPlace(id, INT_MAX, &done);
        if (!done) retry_placement_.insert(id);
        continue;
      }
      // A service admitted per replica queues for its next replica, created now.
      const bool per_replica = host.AdmitsPerReplica(id);
      // Requeued after losing its admission (preempted, evicted): asks for every pod again.
      if (!per_replica) host.SetAdmittedCounts(id, {});
      const model::Workload& w = host.workload(id);
      if (!w.pod_group.empty() && !FindPodGroup(w)) {
        host.SetPendingReason(
            id, "misconfigured_queue",
            fmt::format("PodGroup {}/{} is not in the policy", w.namespace_name, w.pod_group));
        continue;
      }
      const govern::WorkloadRequest req = Request(host, id);
      Result<int> cq = engine_->ResolveClusterQueue(req);
      if (!cq.ok()) {
        host.SetPendingReason(id, "misconfigured_queue", cq.status().message());
        continue;
      }
      const SimTime queued_at = per_replica ? host.Now() : req.queue_timestamp;
      Insert(host, *cq, Entry{engine_->ResolvePriority(req), queued_at.micros(), id, next_seq_++});
      queued_.insert(id);
      inadmissible_.erase(id);
      MarkDirty(*cq);
    }
    pending_enqueue_.clear();
    for (auto it = retry_placement_.begin(); it != retry_placement_.end();) {
      bool done = false;
      used_by_team_[host.workload(*it).team] += host.TryPlace(*it, INT_MAX, &done);
      it = done ? retry_placement_.erase(it) : std::next(it);
    }
  }

  // Kueue's partial admission: per pod set its min count as govern's nomination takes it (-1 =
  // none); empty when no set has one. Services and PodGroup (Volcano) workloads have none.
  static std::vector<int32_t> MinCounts(const model::Workload& w) {
    std::vector<int32_t> mins;
    if (w.kind == model::WorkloadKind::kInference || !w.pod_group.empty() ||
        std::none_of(w.pod_sets.begin(), w.pod_sets.end(),
                     [](const model::PodSet& ps) { return ps.min_count > 0; }))
      return mins;
    for (const model::PodSet& ps : w.pod_sets) mins.push_back(ps.min_count > 0 ? ps.min_count : -1);
    return mins;
  }

  // One admission attempt. On failure the reason is set on the host and kept in last_reason_ /
  // last_detail_, and a workload the attempt reduced asks for all its pods again.
  Outcome TryOne(AdmissionHost& host, model::WorkloadId id, bool allow_borrow) {
    if (host.AdmitsPerReplica(id)) return AttemptReplicas(host, id, allow_borrow);
    bool reduced = false;
    const Outcome o = Attempt(host, id, allow_borrow, &reduced);
    if (reduced && o != Outcome::kAdmitted) host.SetAdmittedCounts(id, {});
    return o;
  }
  // Each attempt starts from the workload's own GPU model (a pin of an earlier flavor is
  // undone, as Kueue restores the pod template when a workload loses its admission).
  void Unpin(AdmissionHost& host, model::WorkloadId id) {
    if (auto pin = pinned_.find(id); pin != pinned_.end()) {
      host.SetGpuModel(id, pin->second);
      pinned_.erase(pin);
    }
  }
  // The GPU flavor's nodeLabels become the pods' nodeSelector: a flavor of one GPU model
  // places the pods on that model's nodes only.
  void Pin(AdmissionHost& host, model::WorkloadId id, const govern::Decision& d) {
    const model::Workload& w = host.workload(id);
    for (const govern::FlavorAssignment& a : d.assignments) {
      auto m = flavor_model_.find(a.flavor);
      if (a.resource != kGpu || m == flavor_model_.end() || w.gpu_model == m->second) continue;
      pinned_.emplace(id, w.gpu_model);
      host.SetGpuModel(id, m->second);
      break;
    }
  }
  // The twin's workload an engine id stands for (a replica's charge: its service).
  model::WorkloadId RunOf(int64_t engine_id) const {
    auto it = replica_owner_.find(engine_id);
    return static_cast<model::WorkloadId>(it == replica_owner_.end() ? engine_id : it->second);
  }
  // A decision that needs preemption: evicts its victims (each loses its work since its last
  // checkpoint) unless no node would take `id` after all (false: the reason is set). A
  // replica's charge chosen as a victim stands for its whole service (the twin evicts
  // workloads, not one replica), which frees at least what the engine counted.
  bool PreemptFor(AdmissionHost& host, model::WorkloadId id, const govern::Decision& d) {
    std::vector<model::WorkloadId> victims;
    for (const auto& v : d.victims) {
      const model::WorkloadId run = RunOf(v.workload_id);
      if (std::find(victims.begin(), victims.end(), run) == victims.end()) victims.push_back(run);
    }
    if (std::find(victims.begin(), victims.end(), id) != victims.end() ||
        !host.FitsAfterPreempting(id, victims)) {
      // Like a placement failure: a node change (a finish, a repair) retries it.
      queues_[d.cluster_queue_index].placement_blocked = true;
      last_reason_ = PendingReasonName(PendingReason::kFragmentation);
      last_detail_ = "preempting would free quota but no node its pods fit on";
      host.SetPendingReason(id, last_reason_, last_detail_);
      return false;
    }
    for (const auto& v : d.victims) {
      const int victim_cq = engine_->FindClusterQueue(v.cluster_queue);
      if (victim_cq >= 0) stats_[victim_cq].evicted["Preempted"]++;
      stats_[d.cluster_queue_index]
          .preempted[std::string(govern::PreemptionReasonName(v.reason))]++;
    }
    for (model::WorkloadId victim : victims) host.Preempt(victim, id);
    return true;
  }
  // A decision that is not kFit: the reason on the host and in last_reason_ / last_detail_.
  void Refused(AdmissionHost& host, model::WorkloadId id, const govern::WorkloadRequest& req,
               const govern::Decision& d) {
    if (d.primary_reason() == govern::PendingReason::kWaitingForBackoff)
      WakeAt(host, d.retry_at, d.cluster_queue_index);
    if (d.primary_reason() == govern::PendingReason::kGangIncomplete) {
      // Retry when its next pod exists (the reason's count stays current).
      const model::Workload& w = host.workload(id);
      WakeAt(host, w.submit_time + w.pod_interval * req.available_pods, d.cluster_queue_index);
    }
    last_reason_ = govern::PendingReasonName(d.primary_reason());
    last_detail_ = d.Message();
    host.SetPendingReason(id, last_reason_, last_detail_);
  }

  // A service admitted per replica (Kueue's Deployment integration: each pod is its own
  // Workload of one pod): while it wants replicas, each is admitted against the queue's quota
  // as a charge of its own and placed, one at a time; Released() gives charges back as
  // replicas go. Stops at the first replica that does not fit (the service keeps its place).
  Outcome AttemptReplicas(AdmissionHost& host, model::WorkloadId id, bool allow_borrow) {
    const SimTime pending_since = host.PendingSince(id);
    const int per_pod = host.workload(id).pod_sets[0].gpus_per_pod;
    while (host.GpusWanted(id) > 0) {
      Unpin(host, id);
      govern::WorkloadRequest req = Request(host, id);
      req.id = next_charge_;
      req.pod_sets.resize(1);
      req.pod_sets[0].count = 1;
      govern::Decision d = engine_->TryAdmit(req, host.Now());
      if (!allow_borrow && d.borrows) return Outcome::kBorrowsLater;
      bool done = false;
      const int placed = PlaceAndAdmit(host, id, req, d, per_pod, &done);
      if (placed == 0) return Outcome::kFailed;
      replicas_[id].push_back(next_charge_);
      replica_owner_[next_charge_++] = id;
      CqStats& st = stats_[d.cluster_queue_index];
      ++st.admitted;
      st.wait.Observe((host.Now() - pending_since).ToSeconds());
      used_by_team_[host.workload(id).team] += placed;
    }
    bool done = false;
    (void)host.TryPlace(id, 0, &done);  // Nothing more wanted: the service leaves the queue.
    return Outcome::kAdmitted;
  }

  // What every attempt does once the engine has decided: evicts the victims and decides again
  // if the decision needs preemption, pins a fit, places up to `pods` pods and admits them.
  // Returns the pods placed (`done`: all it wants are); 0 when the attempt failed (the reason
  // set).
  int PlaceAndAdmit(AdmissionHost& host, model::WorkloadId id, const govern::WorkloadRequest& req,
                    govern::Decision& d, int pods, bool* done) {
    if (d.mode == govern::AdmissionMode::kNeedsPreemption) {
      if (!PreemptFor(host, id, d)) return 0;
      d = engine_->TryAdmit(req, host.Now());
    }
    if (d.mode != govern::AdmissionMode::kFit) {
      Refused(host, id, req, d);
      return 0;
    }
    Pin(host, id, d);
    *done = false;
    const int placed = host.TryPlace(id, pods, done);
    if (placed == 0) {  // Quota fits, no node does: the host set the reason.
      queues_[d.cluster_queue_index].placement_blocked = true;
      last_reason_ = host.PendingReasonOf(id, &last_detail_);
      return 0;
    }
    if (!engine_->Admit(req, d, host.Now()).ok()) return 0;
    return placed;
  }

  Outcome Attempt(AdmissionHost& host, model::WorkloadId id, bool allow_borrow, bool* reduced) {
    Unpin(host, id);
    const SimTime pending_since = host.PendingSince(id);
    // The full request, else (min counts) the most pods that are admissible: the search
    // `policy simulate` runs (govern/partial_admission.h).
    govern::Nomination n = govern::NominateWithPartialAdmission(
        *engine_, Request(host, id), MinCounts(host.workload(id)), host.Now());
    const govern::WorkloadRequest& req = n.request;
    govern::Decision& d = n.decision;
    if (!allow_borrow && d.borrows) return Outcome::kBorrowsLater;
    if (n.reduced) {
      // The twin places and runs the admitted pods only.
      std::vector<int> counts;
      for (const govern::PodSetRequest& ps : req.pod_sets) counts.push_back(ps.count);
      host.SetAdmittedCounts(id, counts);
      *reduced = true;
    }
    bool done = false;
    const int placed = PlaceAndAdmit(host, id, req, d, INT_MAX, &done);
    if (placed == 0) return Outcome::kFailed;
    admitted_.insert(id);
    if (pods_ready_ && host.workload(id).kind != model::WorkloadKind::kInference) {
      // Its pods must all run by now + timeout (services count as ready once placed).
      pods_ready_->OnAdmitted(id, host.Now());
      engine_->SetAdmissionBlocked(pods_ready_->AdmissionBlocked());
      host.RequestCycleAt(host.Now() + pods_ready_->options().timeout);
    }
    CqStats& st = stats_[d.cluster_queue_index];
    ++st.admitted;
    st.wait.Observe((host.Now() - pending_since).ToSeconds());
    used_by_team_[host.workload(id).team] += placed;
    if (!done) retry_placement_.insert(id);
    return Outcome::kAdmitted;
  }

  // Kueue-metric counters of one ClusterQueue.
  struct CqStats {
    int64_t admitted = 0;
    std::map<std::string, int64_t> evicted;    // Of its workloads, by reason.
    std::map<std::string, int64_t> preempted;  // By its workloads, by reason.
    WaitHistogram wait;
  };

  std::unique_ptr<govern::GovernanceEngine> engine_;
  std::vector<CqQueue> queues_;
  std::vector<int> dirty_list_;  // Queues marked dirty since the last cycle.
  // (time, queue): the queue becomes dirty then (gang complete, backoff over).
  std::priority_queue<std::pair<int64_t, int>, std::vector<std::pair<int64_t, int>>, std::greater<>>
      timers_;
  std::vector<CqStats> stats_;
  std::unordered_set<model::WorkloadId> inadmissible_;  // Last attempt failed (BestEffortFIFO).
  std::vector<model::WorkloadId> pending_enqueue_;
  std::unordered_set<model::WorkloadId> queued_, admitted_;
  std::set<model::WorkloadId> retry_placement_;
  std::unordered_map<int, int> used_by_team_;
  std::string_view last_reason_;                        // Of the last failed TryOne.
  std::optional<govern::PodsReadyTracker> pods_ready_;  // Kueue config waitForPodsReady.
  std::vector<std::string> gpu_products_;               // By GPU model index.
  std::map<std::string, int> flavor_model_;             // Flavor -> the GPU model it labels.
  std::unordered_map<model::WorkloadId, int> pinned_;   // Pinned by a flavor: original model.
  govern::RequeueTimestamp requeue_timestamp_;
  // Workloads evicted by PodsReadyTimeout: their latest requeue state.
  std::unordered_map<model::WorkloadId, govern::PodsReadyEviction> requeue_;
  std::string last_detail_;
  uint64_t pass_ = 0;      // ProcessBestEffort passes (and host writes), numbered.
  uint64_t next_seq_ = 1;  // Next Entry::seq.
  // Per workload: the pass its pending reason was last written in (a stamp older than that
  // does not apply to it).
  std::vector<uint64_t> written_;
  std::unordered_map<model::WorkloadId, Shape> shape_of_;  // Queued workloads with a shape.
  // Services admitted per replica: their replicas' charges (engine ids, oldest first), and
  // each charge's service. Charge ids start far above any workload id.
  std::unordered_map<model::WorkloadId, std::vector<int64_t>> replicas_;
  std::unordered_map<int64_t, model::WorkloadId> replica_owner_;
  int64_t next_charge_ = int64_t{1} << 40;
};

}  // namespace

Result<std::unique_ptr<Admitter>> NewKueueAdmitter(govern::Policy policy,
                                                   std::string_view victim_ordering,
                                                   int cluster_gpus,
                                                   std::vector<std::string> gpu_products) {
  // Imported Volcano queues share one cohort; its idle capacity is the cluster's, known here.
  const bool volcano =
      std::any_of(policy.cluster_queues.begin(), policy.cluster_queues.end(),
                  [](const auto& cq) { return cq.cohort == govern::kVolcanoCohort; });
  if (volcano)
    govern::SetVolcanoClusterCapacity(&policy, {{kGpu, cluster_gpus, std::nullopt, std::nullopt}});
  govern::EngineOptions o;
  if (!victim_ordering.empty()) o.victim_ordering = std::string(victim_ordering);
  // A Kueue Configuration among the policy files switches on fair sharing and waitForPodsReady.
  std::optional<govern::PodsReadyOptions> pods_ready;
  govern::RequeueTimestamp requeue_timestamp = govern::RequeueTimestamp::kEviction;
  if (policy.configuration) {
    o.fair_sharing = policy.configuration->fair_sharing;
    const govern::WaitForPodsReadyConfig& w = policy.configuration->wait_for_pods_ready;
    if (w.enable) pods_ready = govern::PodsReadyOptionsFrom(w);
    requeue_timestamp = w.requeuing_timestamp == "Creation" ? govern::RequeueTimestamp::kCreation
                                                            : govern::RequeueTimestamp::kEviction;
  }
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<govern::GovernanceEngine> engine,
                           govern::GovernanceEngine::Create(policy, o));
  return std::unique_ptr<Admitter>(
      new KueueAdmitter(std::move(engine), pods_ready, requeue_timestamp, std::move(gpu_products)));
}

}  // namespace steward::twin
