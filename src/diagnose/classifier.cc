#include "diagnose/classifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace steward::diagnose {
namespace {

using cost::WasteCause;

// Streak lengths are sums of steps: 12 x (5/60) h falls short of 1 h by rounding.
constexpr double kEpsilonHours = 1e-9;

int Index(WasteCause c) { return static_cast<int>(c); }

// The cost model's price for a GPU named like DCGM's modelName or GFD's product label: the
// exact model, else the first word of the name that is a model ("NVIDIA-H100-80GB-HBM3" ->
// "H100"; "NVIDIA L40S" does not match "L4"), else the model's fallback price.
double PriceFor(const cost::CostModel& m, std::string_view name) {
  if (m.HasModel(name)) return m.UsdPerGpuHour(name);
  size_t start = 0;
  while (start < name.size()) {
    size_t end = name.find_first_of(" -", start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view token = name.substr(start, end - start);
    if (!token.empty() && m.HasModel(token)) return m.UsdPerGpuHour(token);
    start = end + 1;
  }
  return m.UsdPerGpuHour(name);
}

}  // namespace

Classifier::Classifier(Thresholds thresholds, cost::CostModel cost_model)
    : t_(thresholds),
      cost_model_(std::move(cost_model)),
      right_sizer_(thresholds.idle_sm_active,
                   RightSizingOptions{thresholds.right_size_quantile, thresholds.share_sm_active}),
      zombie_hours_(thresholds.zombie_minutes / 60) {}

double Classifier::PriceOfName(int32_t name_id, const Catalog& catalog) {
  if (name_id < 0) return cost_model_.fallback_usd_per_gpu_hour();
  if (static_cast<size_t>(name_id) >= name_price_.size()) name_price_.resize(name_id + 1, -1);
  double& p = name_price_[name_id];
  if (p < 0) p = PriceFor(cost_model_, catalog.name(name_id));
  return p;
}

void Classifier::Charge(int32_t gpu, Cause cause, double hours) {
  if (hours <= 0) return;
  GpuState& g = gpus_[gpu];
  const int c = Index(cause);
  const double usd = hours * g.usd_per_hour;
  waste_[c] += hours;
  usd_[c] += usd;
  g.waste[c] += hours;
  if (g.workload >= 0) {
    WorkloadTotals& w = workloads_[g.workload];
    w.waste[c] += hours;
    w.usd += usd;
  }
}

void Classifier::AddIdle(int32_t gpu, double dt, double waste, bool zero) {
  GpuState& g = gpus_[gpu];
  if (g.streak_hours == 0) {
    g.streak_after_compute = g.computed;
    g.streak_all_zero = true;
  }
  g.streak_hours += dt;
  g.streak_all_zero = g.streak_all_zero && zero;
  if (g.streak_zombie) {
    Charge(gpu, Cause::kZombie, waste);
    return;
  }
  g.streak_waste += waste;
  if (g.streak_hours + kEpsilonHours >= zombie_hours_) {
    g.streak_zombie = true;
    Charge(gpu, Cause::kZombie, g.streak_waste);
    g.streak_waste = 0;
  }
}

void Classifier::CloseStreak(int32_t gpu, bool computing_follows) {
  GpuState& g = gpus_[gpu];
  if (g.streak_hours == 0) return;
  if (!g.streak_zombie) {
    if (computing_follows && g.streak_after_compute && g.streak_all_zero) {
      g.drop_waste += g.streak_waste;
      ++g.drops;
    } else {
      Charge(gpu, Cause::kLowEfficiency, g.streak_waste);
    }
  }
  g.streak_hours = g.streak_waste = 0;
  g.streak_zombie = false;
}

void Classifier::CloseHold(int32_t gpu) {
  GpuState& g = gpus_[gpu];
  if (g.pod < 0) return;
  CloseStreak(gpu, /*computing_follows=*/false);
  if (!g.touched) Charge(gpu, Cause::kOverRequest, g.untouched_waste);
  Charge(gpu, g.drops >= t_.stall_min_drops ? Cause::kDataloaderStall : Cause::kLowEfficiency,
         g.drop_waste);
  g.pod = g.workload = -1;
  g.touched = g.computed = false;
  g.untouched_hours = g.untouched_waste = g.drop_waste = 0;
  g.drops = 0;
}

void Classifier::Sample(int32_t gpu, const GpuReading& r, const PodState& pod, double dt) {
  GpuState& g = gpus_[gpu];
  WorkloadTotals& w = workloads_[pod.workload];
  const double a = ActivityOf(r);
  const double util = Present(r.gpu_util) ? r.gpu_util : 100 * a;
  allocated_ += dt;
  sm_active_ += a * dt;
  busy_ += std::clamp(util / 100, 0.0, 1.0) * dt;
  w.allocated += dt;
  w.sm_active += a * dt;
  const double waste = (1 - a) * dt;
  if (pod.phase == PodPhase::kPending) {  // Bound but not started: pulling, creating.
    Charge(gpu, Cause::kStartup, waste);
    return;
  }
  const bool computing = a >= t_.idle_sm_active;
  const bool memory = Present(r.fb_used) ? r.fb_used >= t_.fb_held_mib : computing;
  if ((computing || memory) && !g.touched) {
    // First use: the untouched time before it was an idle start, not a GPU never driven.
    g.touched = true;
    if (g.untouched_hours > 0) AddIdle(gpu, g.untouched_hours, g.untouched_waste, false);
    g.untouched_hours = g.untouched_waste = 0;
  }
  if (computing) {
    CloseStreak(gpu, /*computing_follows=*/true);
    g.computed = true;
    const bool low =
        a < t_.low_sm_active || (t_.low_tensor_active > 0 && Present(r.tensor_active) &&
                                 r.tensor_active < t_.low_tensor_active);
    if (low) {
      Charge(gpu, Cause::kLowEfficiency, waste);
    } else {
      unattributed_ += waste;
    }
  } else if (memory) {
    AddIdle(gpu, dt, waste, util <= t_.stall_gpu_util_percent);
  } else if (!g.touched) {
    g.untouched_hours += dt;
    g.untouched_waste += waste;
  } else {
    AddIdle(gpu, dt, waste, false);  // Memory released but the pod still holds the GPU.
  }
}

Status Classifier::Consume(const Snapshot& raw, const Frame& frame, const Catalog& catalog) {
  ++frame_no_;
  if (frame_no_ == 1) first_ms_ = frame.time_ms;
  last_ms_ = frame.time_ms;
  step_hours_ = frame.hours;
  const double dt = frame.hours;
  if (gpus_.size() < catalog.gpus().size()) gpus_.resize(catalog.gpus().size());
  if (workloads_.size() < catalog.num_names()) workloads_.resize(catalog.num_names());
  if (pod_slot_.size() < catalog.pods().size()) {
    pod_slot_.resize(catalog.pods().size(), -1);
    pod_slot_frame_.resize(catalog.pods().size(), 0);
  }
  for (size_t i = 0; i < frame.pods.size(); ++i) {
    pod_slot_[frame.pods[i].pod] = static_cast<int32_t>(i);
    pod_slot_frame_[frame.pods[i].pod] = frame_no_;
    const PodState& p = frame.pods[i];
    // The latest word wins: a pod first seen only in DCGM (team = namespace) gets its object's
    // team once the object shows up.
    if (p.workload >= 0) {
      WorkloadTotals& w = workloads_[p.workload];
      w.team = p.team;
      if (p.owner_kind >= 0) w.owner_kind = p.owner_kind;
      if (p.node >= 0) {
        if (w.pods_frame != frame_no_) {
          w.pods_frame = frame_no_;
          w.pods_now = 0;
        }
        w.peak_pods = std::max(w.peak_pods, ++w.pods_now);
      }
    }
  }
  const size_t nodes = catalog.nodes().size();
  held_on_node_.assign(nodes, 0);
  free_on_node_.assign(nodes, 0);

  for (const GpuReading& r : frame.gpus) {
    GpuState& g = gpus_[r.gpu];
    const Catalog::Gpu& cg = catalog.gpus()[r.gpu];
    if (g.last_frame == 0) {
      g.usd_per_hour = cg.model_name.empty() ? PriceOfName(cg.product, catalog)
                                             : PriceFor(cost_model_, cg.model_name);
    }
    g.last_frame = frame_no_;
    capacity_ += dt;
    if (r.pod < 0) {
      CloseHold(r.gpu);
      ++free_on_node_[cg.node];
      const double a = ActivityOf(r);
      if (a >= t_.idle_sm_active || (Present(r.fb_used) && r.fb_used >= t_.fb_held_mib))
        unmapped_busy_ += dt;
      continue;
    }
    ++held_on_node_[cg.node];
    const PodState& pod = frame.pods[pod_slot_[r.pod]];  // The builder lists every DCGM pod.
    if (g.pod != r.pod) CloseHold(r.gpu);
    g.pod = r.pod;
    g.workload = pod.workload;  // May change once the pod's object shows up; charges follow.
    Sample(r.gpu, r, pod, dt);
  }
  ClusterWaste(frame, catalog);
  return right_sizer_.Consume(raw, frame, catalog);
}

void Classifier::ClusterWaste(const Frame& frame, const Catalog& catalog) {
  // Free GPUs per node: allocatable minus held on schedulable nodes when the node objects are
  // known, else the GPUs DCGM shows without a pod.
  if (frame.has_nodes) {
    std::vector<int> from_objects(free_on_node_.size(), 0);
    for (const NodeState& n : frame.nodes) {
      if (static_cast<size_t>(n.node) >= from_objects.size()) continue;  // No GPU seen there.
      from_objects[n.node] = n.schedulable ? std::max(0, n.allocatable - held_on_node_[n.node]) : 0;
    }
    free_on_node_ = std::move(from_objects);
  }
  // Per product (few): free total and the most free on one node.
  struct Bucket {
    int32_t product;
    int free = 0, max_free = 0;
    int frag_demand = 0, queue_demand = 0;
  };
  std::vector<Bucket> buckets;
  auto bucket = [&](int32_t product) -> Bucket& {
    for (Bucket& b : buckets)
      if (b.product == product) return b;
    buckets.push_back(Bucket{product});
    return buckets.back();
  };
  int total_free = 0, max_free = 0;
  for (size_t n = 0; n < free_on_node_.size(); ++n) {
    const int f = free_on_node_[n];
    if (f <= 0) continue;
    Bucket& b = bucket(catalog.nodes()[n].product);
    b.free += f;
    b.max_free = std::max(b.max_free, f);
    total_free += f;
    max_free = std::max(max_free, f);
  }
  // Who waits for admission, per team, whether or not GPUs are free.
  const double dt = frame.hours;
  waiting_teams_.clear();
  int waiting_total = 0;
  for (const PodState& p : frame.pods) {
    if (p.node >= 0 || p.phase != PodPhase::kPending || p.wait != PodWait::kQueued || p.gpus <= 0 ||
        p.team < 0)
      continue;
    if (team_queueing_.size() <= static_cast<size_t>(p.team)) team_queueing_.resize(p.team + 1);
    TeamQueueing& tq = team_queueing_[p.team];
    if (tq.frame != frame_no_) {
      tq.frame = frame_no_;
      tq.waiting_now = 0;
      waiting_teams_.push_back(p.team);
    }
    tq.waiting_now += p.gpus;
    waiting_total += p.gpus;
  }
  for (int32_t t : waiting_teams_) {
    TeamQueueing& tq = team_queueing_[t];
    tq.waiting_gpu_hours += tq.waiting_now * dt;
    tq.peak_waiting = std::max(tq.peak_waiting, tq.waiting_now);
  }
  if (total_free == 0) return;
  int frag_any = 0, queue_any = 0;
  for (const PodState& p : frame.pods) {
    if (p.node >= 0 || p.phase != PodPhase::kPending || p.wait == PodWait::kNone || p.gpus <= 0)
      continue;
    if (p.product >= 0) {
      Bucket& b = bucket(p.product);
      if (p.wait == PodWait::kQueued) {
        b.queue_demand += p.gpus;
      } else if (p.gpus <= b.free && p.gpus > b.max_free) {
        b.frag_demand += p.gpus;
      }
    } else if (p.wait == PodWait::kQueued) {
      queue_any += p.gpus;
    } else if (p.gpus <= total_free && p.gpus > max_free) {
      frag_any += p.gpus;
    }
  }
  std::sort(buckets.begin(), buckets.end(),
            [](const Bucket& a, const Bucket& b) { return a.product < b.product; });
  double queue_hours = 0, queue_usd = 0;  // This frame's queueing, for the teams below.
  auto charge = [&](Cause cause, int32_t product, int gpus) {
    if (gpus <= 0) return;
    const double h = gpus * dt;
    const double usd = h * PriceOfName(product, catalog);
    waste_[Index(cause)] += h;
    usd_[Index(cause)] += usd;
    if (cause == Cause::kQueueing) {
      queue_hours += h;
      queue_usd += usd;
    }
  };
  // Free GPUs go to a product's own demand first, then to pods that take any product;
  // fragmentation before queueing (a pod that cannot be placed cannot use quota either).
  for (Cause cause : {Cause::kFragmentation, Cause::kQueueing}) {
    const bool frag = cause == Cause::kFragmentation;
    for (Bucket& b : buckets) {
      const int take = std::min(b.free, frag ? b.frag_demand : b.queue_demand);
      charge(cause, b.product, take);
      b.free -= take;
    }
    int any = frag ? frag_any : queue_any;
    for (Bucket& b : buckets) {
      const int take = std::min(b.free, any);
      charge(cause, b.product, take);
      b.free -= take;
      any -= take;
    }
  }
  if (queue_hours > 0 && waiting_total > 0) {
    for (int32_t t : waiting_teams_) {
      TeamQueueing& tq = team_queueing_[t];
      const double share = static_cast<double>(tq.waiting_now) / waiting_total;
      tq.gpu_hours += queue_hours * share;
      tq.usd += queue_usd * share;
    }
  }
}

Status Classifier::Finish(const Catalog& catalog) {
  for (size_t g = 0; g < gpus_.size(); ++g) CloseHold(static_cast<int32_t>(g));
  catalog_ = &catalog;
  return Status::Ok();
}

Diagnosis Classifier::Result(const Diagnosis::Source& source) const {
  Diagnosis d;
  d.source = source;
  d.thresholds = t_;
  d.currency = cost_model_.currency();
  d.capacity_gpu_hours = capacity_;
  d.allocated_gpu_hours = allocated_;
  d.busy_gpu_hours = busy_;
  d.sm_active_gpu_hours = sm_active_;
  if (capacity_ > 0) {
    d.allocation_rate = allocated_ / capacity_;
    d.busy_utilization = busy_ / capacity_;
    d.sm_active_utilization = sm_active_ / capacity_;
  }
  d.unattributed_gpu_hours = unattributed_;
  d.unmapped_busy_gpu_hours = unmapped_busy_;
  for (WasteCause c : cost::kAllWasteCauses) {
    if (waste_[Index(c)] <= 0) continue;
    const std::string name(cost::WasteCauseName(c));
    d.waste_gpu_hours_by_cause[name] = waste_[Index(c)];
    d.waste_usd_by_cause[name] = usd_[Index(c)];
  }

  auto fill = [](Diagnosis::Waster& w, const std::array<double, kCauses>& waste) {
    double top = 0;
    for (WasteCause c : cost::kAllWasteCauses) {
      const double h = waste[Index(c)];
      if (h <= 0) continue;
      w.by_cause[std::string(cost::WasteCauseName(c))] = h;
      w.waste += h;
      if (h > top) {
        top = h;
        w.top_cause = std::string(cost::WasteCauseName(c));
      }
    }
  };
  auto by_waste = [](const auto& a, const auto& b) {
    return a.waste != b.waste ? a.waste > b.waste : a.name < b.name;
  };
  const size_t top_n = static_cast<size_t>(std::max(0, t_.top_n));
  std::map<int32_t, WorkloadTotals> teams;
  std::vector<Diagnosis::Waster> workloads;
  for (size_t i = 0; i < workloads_.size(); ++i) {
    const WorkloadTotals& w = workloads_[i];
    if (w.allocated <= 0 || w.team < 0) continue;
    Diagnosis::Waster row;
    row.name = catalog_->name(static_cast<int32_t>(i));
    row.team = catalog_->name(w.team);
    row.allocated = w.allocated;
    row.sm_active = w.sm_active;
    row.usd = w.usd;
    row.owner_kind = w.owner_kind >= 0 ? catalog_->name(w.owner_kind) : "";
    row.replicas = w.peak_pods;
    fill(row, w.waste);
    workloads.push_back(std::move(row));
    WorkloadTotals& t = teams[w.team];
    t.allocated += w.allocated;
    t.sm_active += w.sm_active;
    t.usd += w.usd;
    for (int c = 0; c < kCauses; ++c) t.waste[c] += w.waste[c];
  }
  for (const auto& [team, t] : teams) {
    Diagnosis::Waster row;
    row.name = catalog_->name(team);
    row.allocated = t.allocated;
    row.sm_active = t.sm_active;
    row.usd = t.usd;
    fill(row, t.waste);
    d.top_teams.push_back(std::move(row));
  }
  std::sort(d.top_teams.begin(), d.top_teams.end(), by_waste);
  std::sort(workloads.begin(), workloads.end(), by_waste);
  if (d.top_teams.size() > top_n) d.top_teams.resize(top_n);
  if (workloads.size() > top_n) workloads.resize(top_n);
  d.top_workloads = std::move(workloads);
  for (size_t t = 0; t < team_queueing_.size(); ++t) {
    const TeamQueueing& tq = team_queueing_[t];
    if (tq.waiting_gpu_hours <= 0) continue;
    Diagnosis::QueueingTeam row;
    row.team = catalog_->name(static_cast<int32_t>(t));
    row.gpu_hours = tq.gpu_hours;
    row.usd = tq.usd;
    row.waiting_gpu_hours = tq.waiting_gpu_hours;
    row.peak_waiting_gpus = tq.peak_waiting;
    d.queueing_by_team.push_back(std::move(row));
  }
  std::sort(d.queueing_by_team.begin(), d.queueing_by_team.end(), [](const auto& a, const auto& b) {
    return a.gpu_hours != b.gpu_hours ? a.gpu_hours > b.gpu_hours : a.team < b.team;
  });

  for (size_t i = 0; i < gpus_.size() && i < catalog_->gpus().size(); ++i) {
    const GpuState& g = gpus_[i];
    Diagnosis::Waster sums;
    fill(sums, g.waste);
    if (sums.waste <= 0) continue;
    const Catalog::Gpu& cg = catalog_->gpus()[i];
    d.top_gpus.push_back({cg.hostname, cg.uuid.empty() ? std::to_string(cg.index) : cg.uuid,
                          cg.model_name, sums.waste, sums.waste * g.usd_per_hour, sums.top_cause});
  }
  std::sort(d.top_gpus.begin(), d.top_gpus.end(), [](const auto& a, const auto& b) {
    if (a.waste != b.waste) return a.waste > b.waste;
    return a.hostname != b.hostname ? a.hostname < b.hostname : a.uuid < b.uuid;
  });
  if (d.top_gpus.size() > top_n) d.top_gpus.resize(top_n);

  for (const auto& [cause, h] : d.waste_gpu_hours_by_cause)
    if (allocated_ > 0 && h >= t_.recommend_share * allocated_)
      d.recommendations.push_back({cause, ActionFor(cause, t_), h, d.waste_usd_by_cause.at(cause)});
  std::sort(d.recommendations.begin(), d.recommendations.end(), [](const auto& a, const auto& b) {
    return a.gpu_hours != b.gpu_hours ? a.gpu_hours > b.gpu_hours : a.cause < b.cause;
  });

  if (capacity_ > 0 && unmapped_busy_ > 0.01 * capacity_) {
    d.warnings.push_back(fmt::format(
        "{:.0f} GPU-hours of activity on GPUs no pod label maps: pods outside Kubernetes, or "
        "dcgm-exporter's pod mapping is off (those GPUs count as free)",
        unmapped_busy_));
  }
  d.right_sizing = right_sizer_.Result();
  if (frame_no_ == 0) d.warnings.push_back("no frames: the source had no data in the window");
  return d;
}

}  // namespace steward::diagnose
