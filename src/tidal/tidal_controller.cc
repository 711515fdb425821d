#include "tidal/tidal_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace steward::tidal {
namespace {

constexpr const char* kGpu = "nvidia.com/gpu";

const control::QueueQuota* GpuQuota(const control::QueueInfo& q) {
  for (const control::QueueQuota& quota : q.quotas)
    if (quota.resource == kGpu) return &quota;
  return nullptr;
}

std::optional<int> WholeGpus(const std::string& quantity) {
  int v = 0;
  const char* end = quantity.data() + quantity.size();
  auto [p, ec] = std::from_chars(quantity.data(), end, v);
  if (ec != std::errc() || p != end || v < 0) return std::nullopt;
  return v;
}

// The replicas a service's request rate asks for at its autoscaler's target, in [min, max].
double WantedReplicas(const ServiceLoad& s) {
  const double per_replica = s.target_utilization * s.capacity_per_replica;
  return std::clamp(std::ceil(s.rps / per_replica - 1e-9), static_cast<double>(s.min_replicas),
                    static_cast<double>(s.max_replicas));
}

}  // namespace

void TidalController::ObserveHistory(const ServiceLoad& s, SimTime at) {
  forecasts_.try_emplace(s.name, options_.forecast).first->second.Observe(at, WantedReplicas(s));
}

TidalController::TidalController(control::ClusterControl& control, TidalOptions options)
    : control_(control), options_(std::move(options)) {
  if (options_.borrower_namespace.empty()) options_.borrower_namespace = options_.lend_to;
}

Result<TidalController::Queues> TidalController::ReadQueues() const {
  Queues q;
  q.all = control_.ClusterQueues();
  for (const control::QueueInfo& info : q.all) {
    if (info.name == options_.lend_from) q.from = &info;
    if (info.name == options_.lend_to) q.to = &info;
  }
  if (!q.from || !GpuQuota(*q.from))
    return Status::NotFound(fmt::format("tidal: no ClusterQueue '{}' with a GPU quota to lend from",
                                        options_.lend_from));
  if (!q.to || !GpuQuota(*q.to))
    return Status::NotFound(
        fmt::format("tidal: no ClusterQueue '{}' with a GPU quota to lend to", options_.lend_to));
  if (options_.lend_by == LendBy::kLendingLimit &&
      (q.from->cohort.empty() || q.from->cohort != q.to->cohort))
    return Status::FailedPrecondition(fmt::format(
        "tidal: lending by lendingLimit needs ClusterQueues '{}' and '{}' in one cohort (cohorts "
        "'{}' and '{}')",
        options_.lend_from, options_.lend_to, q.from->cohort, q.to->cohort));
  return q;
}

Status TidalController::PatchGpuQuota(const std::string& queue,
                                      const std::function<void(control::QueueQuota&)>& change,
                                      std::string_view reason) {
  for (int attempt = 0;; ++attempt) {
    STEWARD_ASSIGN_OR_RETURN(Queues q, ReadQueues());
    const control::QueueInfo& info = queue == options_.lend_from ? *q.from : *q.to;
    const control::QueueQuota& now = *GpuQuota(info);
    control::QueueQuota quota = now;
    change(quota);
    if (quota.nominal == now.nominal && quota.lending_limit == now.lending_limit)
      return Status::Ok();
    Status s = control_.PatchQueueQuota(info.name, info.resource_version, quota, reason);
    if (s.code() != Status::Code::kAborted || attempt > 0) return s;
  }
}

Status TidalController::SetNominal(const std::string& queue, int gpus, std::string_view reason) {
  return PatchGpuQuota(
      queue, [&](control::QueueQuota& q) { q.nominal = std::to_string(gpus); }, reason);
}

Status TidalController::SetLendingLimit(int gpus, std::string_view reason) {
  return PatchGpuQuota(
      options_.lend_from, [&](control::QueueQuota& q) { q.lending_limit = std::to_string(gpus); },
      reason);
}

Status TidalController::MoveQuota(int lent, std::string_view reason) {
  // The side that gives GPUs up goes first, so the two quotas never hold more than the cluster.
  const int from = *serving_base_ - lent, to = *borrower_base_ + lent;
  if (lent > stats_.lent_gpus) {
    STEWARD_RETURN_IF_ERROR(SetNominal(options_.lend_from, from, reason));
    return SetNominal(options_.lend_to, to, reason);
  }
  STEWARD_RETURN_IF_ERROR(SetNominal(options_.lend_to, to, reason));
  return SetNominal(options_.lend_from, from, reason);
}

TidalController::BorrowerView TidalController::ListBorrowers() const {
  // Borrowing workloads and one pod of each per node (a gang stops whole from any pod).
  BorrowerView v;
  for (const control::NodeInfo& node : control_.Nodes()) {
    for (const control::PodInfo& pod : control_.PodsOnNode(node.name)) {
      if (pod.ref.namespace_name != options_.borrower_namespace) continue;
      if (evicting_.count(pod.workload)) continue;
      if (pod.terminating && shrinking_.count(pod.workload)) continue;  // Leaving already.
      v.held += pod.gpus;
      Borrower& b = v.by_workload[pod.workload];
      b.workload = pod.workload;
      b.gpus += pod.gpus;
      b.can_checkpoint = pod.can_checkpoint;
      if (pod.min_workers > 0) {
        auto& [count, min] = v.workers[pod.workload];
        ++count;
        min = pod.min_workers;
        b.gpus_per_worker = pod.gpus;
      }
      v.first_pod.emplace(pod.workload, pod.ref);
    }
  }
  return v;
}

Status TidalController::GrowBack(int borrower_quota) {
  BorrowerView view = ListBorrowers();
  Status first;
  control::IntentScope intent(control_, "tidal-lend");
  for (auto it = shrunk_.begin(); it != shrunk_.end();) {
    const auto w = view.workers.find(it->first);
    // Finished or evicted (a requeued job asks for its size at admission): not ours to grow.
    if (w == view.workers.end() || w->second.first >= it->second) {
      it = shrunk_.erase(it);
      continue;
    }
    const int per_worker = view.by_workload.at(it->first).gpus_per_worker;
    const int room = (borrower_quota - view.held) / std::max(1, per_worker);
    if (room <= 0) break;
    const int to = w->second.first + std::min(room, it->second - w->second.first);
    const int gpus = (to - w->second.first) * per_worker;
    Status s = control_.ResizeWorkload(
        it->first, to,
        fmt::format("tidal: {} lends {} GPUs again; {} of them to its shrunk workers",
                    options_.lend_from, stats_.lent_gpus, gpus));
    if (s.ok()) {
      ++stats_.regrows;
      stats_.gpus_regrown += gpus;
      view.held += gpus;
      if (to >= it->second) {
        it = shrunk_.erase(it);
        continue;
      }
    } else if (s.code() != Status::Code::kUnavailable &&
               s.code() != Status::Code::kFailedPrecondition && first.ok()) {
      first = s;
    }
    ++it;
  }
  return first;
}

Status TidalController::EvictBeyondQuota(int borrower_quota) {
  const SimTime now = control_.Now();
  std::erase_if(evicting_, [&](const auto& e) { return e.second <= now; });
  std::erase_if(shrinking_, [&](const auto& e) { return e.second <= now; });
  BorrowerView view = ListBorrowers();
  std::map<std::string, Borrower>& by_workload = view.by_workload;
  const std::map<std::string, control::PodRef>& first_pod = view.first_pod;
  const std::map<std::string, std::pair<int, int>>& workers = view.workers;
  const int over = view.held - borrower_quota;
  if (over <= 0) return Status::Ok();
  std::vector<Borrower> borrowers;
  for (auto& [name, b] : by_workload) {
    const SimDuration loss =
        b.can_checkpoint ? options_.checkpointing_loss : options_.non_checkpointing_loss;
    b.lost_gpu_hours = b.gpus * loss.ToHours();
    if (auto w = workers.find(name); w != workers.end() && !resize_refused_.count(name))
      b.shrinkable_workers = std::max(0, w->second.first - w->second.second);
    else
      b.gpus_per_worker = 0;
    borrowers.push_back(b);
  }
  Status first;
  control::IntentScope intent(control_, "tidal-reclaim");
  const ReclaimPlan plan = PlanReclaim(borrowers, over);
  for (const ReclaimPlan::Shrink& shrink : plan.shrinks) {
    const Borrower& b = borrowers[shrink.borrower];
    const int to = workers.at(b.workload).first - shrink.drop_workers;
    const int gpus = shrink.drop_workers * b.gpus_per_worker;
    Status s = control_.ResizeWorkload(
        b.workload, to,
        fmt::format("tidal: serving takes {} GPUs back from {}", gpus, options_.lend_to));
    if (s.ok()) {
      ++stats_.shrinks;
      stats_.gpus_shrunk += gpus;
      if (options_.grow_back) shrunk_.try_emplace(b.workload, workers.at(b.workload).first);
      shrinking_[b.workload] = now + options_.save + options_.period;
      (void)control_.EmitEvent(
          {"Pod", first_pod.at(b.workload).namespace_name, first_pod.at(b.workload).name}, "Normal",
          "TidalShrink",
          fmt::format("shrunk to {} workers: serving needs {} GPUs back before the ramp", to,
                      gpus));
    } else {
      // Not resizable here (still starting, or the cluster cannot): evicted at the next check.
      resize_refused_.insert(b.workload);
      if (s.code() != Status::Code::kFailedPrecondition && first.ok()) first = s;
    }
  }
  for (size_t i : plan.evictions) {
    const Borrower& b = borrowers[i];
    Status s = control_.Evict(
        first_pod.at(b.workload), options_.save,
        fmt::format("tidal: serving takes {} GPUs back from {}", b.gpus, options_.lend_to));
    if (s.ok() || s.code() == Status::Code::kNotFound) {
      ++stats_.evictions;
      evicting_[b.workload] = now + options_.save + options_.period;
      (void)control_.EmitEvent(
          {"Pod", first_pod.at(b.workload).namespace_name, first_pod.at(b.workload).name}, "Normal",
          "TidalReclaim",
          fmt::format("evicted with {} s to checkpoint: serving needs its "
                      "GPUs back before the ramp",
                      options_.save.ToSeconds()));
    } else if (first.ok()) {
      first = s;
    }
  }
  return first;
}

void TidalController::Account(SimTime now) {
  if (!last_step_.is_never() && now > last_step_)
    stats_.gpu_hours_lent += stats_.lent_gpus * (now - last_step_).ToHours();
  stats_.gpu_hours_reclaimed = reclaimed_.GpuHours(now);
  last_step_ = now;
}

Status TidalController::ReadSplit(const Queues& q) {
  if (serving_base_) return Status::Ok();
  serving_base_ =
      options_.serving_quota ? options_.serving_quota : WholeGpus(GpuQuota(*q.from)->nominal);
  borrower_base_ =
      options_.borrower_quota ? options_.borrower_quota : WholeGpus(GpuQuota(*q.to)->nominal);
  if (!serving_base_ || !borrower_base_) {
    serving_base_.reset();
    return Status::InvalidArgument(
        "tidal: the lending queues' GPU quotas are not whole numbers of GPUs");
  }
  for (const control::NodeInfo& n : control_.Nodes())
    node_gpus_ = std::max(node_gpus_, n.gpu_capacity);
  if (options_.lend_by == LendBy::kLendingLimit) {
    // What the serving queue lends now is its lendingLimit (none set: all of its nominal).
    const control::QueueQuota& gpu = *GpuQuota(*q.from);
    const std::optional<int> lending =
        gpu.lending_limit ? WholeGpus(*gpu.lending_limit) : WholeGpus(gpu.nominal);
    if (!lending)
      return Status::InvalidArgument(
          "tidal: the serving queue's GPU lendingLimit is not a whole number of GPUs");
    stats_.lent_gpus = std::min(*lending, *serving_base_);
  } else if (options_.serving_quota) {
    // A stated split below which the serving queue was found (a restart while lending): that
    // much is lent now, so the steps below keep or take it back.
    const std::optional<int> found = WholeGpus(GpuQuota(*q.from)->nominal);
    if (found && *found < *serving_base_) stats_.lent_gpus = *serving_base_ - *found;
  }
  return Status::Ok();
}

Status TidalController::Step(const std::vector<ServiceLoad>& services) {
  const SimTime now = control_.Now();
  Account(now);

  // 1. Demand, into each service's forecast.
  const SimTime horizon = now + options_.lead_time() + options_.period * 2;
  std::vector<ServiceDemand> demand;
  for (const ServiceLoad& s : services) {
    const double wanted = WantedReplicas(s);
    DemandForecast& f = forecasts_.try_emplace(s.name, options_.forecast).first->second;
    f.Observe(now, wanted);
    ServiceDemand d;
    d.name = s.name;
    d.gpus_per_replica = s.gpus_per_replica;
    d.min_replicas = s.min_replicas;
    d.max_replicas = s.max_replicas;
    d.desired = std::max(s.desired_replicas, static_cast<int>(wanted));
    d.forecast = f.Forecast(now, horizon);
    d.scale_up_pods = s.scale_up_pods;
    d.scale_up_percent = s.scale_up_percent;
    demand.push_back(std::move(d));
  }

  // 2. The static split, as first read.
  STEWARD_ASSIGN_OR_RETURN(Queues q, ReadQueues());
  STEWARD_RETURN_IF_ERROR(ReadSplit(q));

  // 3. What may be lent now.
  last_need_ = demand.empty() ? std::nullopt : ServingNeed(demand, options_.reserve_gpus);
  const int target = last_need_ ? LendTarget(*serving_base_, *last_need_, node_gpus_) : 0;
  const std::string reason =
      fmt::format("tidal: serving keeps {} GPUs (forecast + reserve); {} lends {}",
                  last_need_.value_or(*serving_base_), options_.lend_from, target);
  return Act(target, reason, now);
}

Status TidalController::ReclaimAll(std::string_view why) {
  const SimTime now = control_.Now();
  Account(now);
  STEWARD_ASSIGN_OR_RETURN(Queues q, ReadQueues());
  STEWARD_RETURN_IF_ERROR(ReadSplit(q));
  return Act(0,
             fmt::format("tidal: {}; serving keeps its whole static split ({} GPUs); {} lends 0",
                         why, *serving_base_, options_.lend_from),
             now);
}

Status TidalController::Act(int target, std::string_view reason, SimTime now) {
  Status first;
  if (target != stats_.lent_gpus) {
    const bool lend = target > stats_.lent_gpus;
    control::IntentScope intent(control_, lend ? "tidal-lend" : "tidal-reclaim");
    Status s = options_.lend_by == LendBy::kLendingLimit ? SetLendingLimit(target, reason)
                                                         : MoveQuota(target, reason);
    if (s.ok()) {
      if (lend) {
        ++stats_.lends;
        reclaimed_.Lend(target - stats_.lent_gpus, now);
      } else {
        ++stats_.reclaims;
        stats_.gpus_reclaimed += stats_.lent_gpus - target;
        reclaimed_.Reclaim(stats_.lent_gpus - target, now);
        check_until_ = now + options_.save + options_.restart + options_.period * 2;
      }
      stats_.lent_gpus = target;
      stats_.max_lent_gpus = std::max(stats_.max_lent_gpus, target);
      (void)control_.EmitEvent({"ClusterQueue", "", options_.lend_from}, "Normal",
                               lend ? "TidalLend" : "TidalReclaim", reason);
    } else {
      ++stats_.errors;
      first = s;
    }
  }
  // 4. After a reclaim, the borrower gives back what it holds beyond its quota.
  if (!check_until_.is_never() && now <= check_until_) {
    Status s = EvictBeyondQuota(*borrower_base_ + stats_.lent_gpus);
    if (!s.ok()) {
      ++stats_.errors;
      if (first.ok()) first = s;
    }
  } else if (!shrunk_.empty() && now >= next_grow_) {
    // 5. Outside a reclaim, shrunk borrowers grow back within the borrower's quota (every
    //    kGrowEvery periods: each try lists the borrower's pods).
    next_grow_ = now + options_.period * kGrowEvery;
    Status s = GrowBack(*borrower_base_ + stats_.lent_gpus);
    if (!s.ok()) {
      ++stats_.errors;
      if (first.ok()) first = s;
    }
  }
  return first;
}

}  // namespace steward::tidal
