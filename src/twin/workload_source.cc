#include "twin/workload_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>

#include "place/mig.h"

namespace steward::twin {
namespace {

// The diagnose's right-sizing (RightSizeSpec), after every draw, so the random stream is the
// one without it. The job's work stays: the GPUs it drives (gpus x used_gpu_fraction per pod),
// and on them its SM-active, stalls and active hours. Only what it asks for changes, and how
// DCGM reads the same work on a MIG instance (x 7/k, the instance being k/7 of the SMs).
void RightSize(const RightSizeSpec& rs, model::Workload* w) {
  // Generators make one pod set; a pod asks for the GPUs it drives, rounded up, and drives
  // the same GPU count on them: gpus x used_gpu_fraction is unchanged.
  if (rs.to_used_gpus && w->usage.used_gpu_fraction < 1 && w->pod_sets.size() == 1 &&
      w->pod_sets[0].gpu_milli >= 1000 && w->pod_sets[0].mig_profile.empty()) {
    model::PodSet& ps = w->pod_sets[0];
    const double driven = ps.gpus_per_pod * w->usage.used_gpu_fraction;
    const int used = std::max(1, static_cast<int>(std::ceil(driven - 1e-9)));
    if (used < ps.gpus_per_pod) {
      ps.gpus_per_pod = used;
      w->usage.used_gpu_fraction = std::min(1.0, driven / used);
    }
  }
  if (rs.mig_profile.empty()) return;
  const int profile = place::ParseMigProfile(rs.mig_profile);
  const double scale =
      static_cast<double>(place::kMigComputeSlices) / place::MigInfo(profile).compute_slices;
  // Only a whole single GPU, fully used, whose SM work fits on the instance.
  if (w->usage.used_gpu_fraction < 1 || w->usage.sm_active * scale > 1) return;
  for (const model::PodSet& ps : w->pod_sets)
    if (ps.gpus_per_pod != 1 || ps.gpu_milli < 1000 || !ps.mig_profile.empty()) return;
  for (model::PodSet& ps : w->pod_sets) ps.mig_profile = rs.mig_profile;
  model::UsageProfile& u = w->usage;
  u.sm_active *= scale;
  u.busy = std::clamp(u.busy * scale, u.sm_active, 1.0);  // A kernel runs at least that often.
  u.idle_busy = std::min(1.0, u.idle_busy * scale);
}

// "<generator>-000042": the name fmt's "{}-{:06d}" gives, without its format parsing (1.5 % of
// a 102,400-GPU run, once per arrival).
std::string NumberedName(const std::string& base, int64_t n) {
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  const auto len = static_cast<size_t>(end - digits);
  std::string name;
  name.reserve(base.size() + 1 + std::max<size_t>(len, 6));
  name.append(base).push_back('-');
  if (len < 6) name.append(6 - len, '0');
  name.append(digits, len);
  return name;
}

class GeneratorSource final : public WorkloadSource {
 public:
  GeneratorSource(const GeneratorSpec& spec, const TeamSpec& team, int team_index, int gpu_model,
                  SimTime horizon, uint64_t seed)
      : spec_(spec),
        team_(team),
        team_index_(team_index),
        gpu_model_(gpu_model),
        horizon_(horizon),
        rng_(seed) {
    model::LabelMap::Map labels = spec_.labels;
    labels.emplace(kGeneratorLabel, spec_.name);
    labels_ = std::move(labels);
    next_ = kSimStart + SecondsF(spec_.arrival.start_hours * 3600);
    if (spec_.arrival.process == ArrivalSpec::Process::kPoisson) Advance();
    if (spec_.arrival.process == ArrivalSpec::Process::kOnce && spec_.arrival.count == 0)
      next_ = SimTime::Never();
    if (next_ > horizon_) next_ = SimTime::Never();
  }

  SimTime NextTime() const override { return next_; }

  model::Workload Take() override {
    model::Workload w = Make(next_);
    ++emitted_;
    if (spec_.arrival.process == ArrivalSpec::Process::kOnce) {
      if (emitted_ >= spec_.arrival.count) next_ = SimTime::Never();
    } else {
      Advance();
    }
    if (next_ > horizon_) next_ = SimTime::Never();
    return w;
  }

 private:
  // Next arrival of a Poisson process whose rate follows the diurnal curve, by thinning:
  // candidates at the peak rate are kept with probability rate(t) / peak rate.
  void Advance() {
    const ArrivalSpec& a = spec_.arrival;
    const double peak = a.rate_per_hour * (1 + a.diurnal_amplitude);
    double t = next_.ToHours();
    for (;;) {
      t += rng_.Exponential(1.0 / peak);
      if (t * 3600 * 1e6 >= static_cast<double>(horizon_.micros())) {
        next_ = SimTime::Never();
        return;
      }
      const double rate =
          a.rate_per_hour *
          (1 + a.diurnal_amplitude * std::cos(2 * std::numbers::pi * (t - a.peak_hour) / 24));
      if (rng_.Uniform() * peak <= rate) break;
    }
    next_ = kSimStart + SecondsF(t * 3600);
  }

  model::Workload Make(SimTime at) {
    model::Workload w;
    w.name = NumberedName(spec_.name, emitted_);
    w.team = team_index_;
    w.namespace_name = team_.namespace_name;
    w.queue = spec_.queue.empty() ? team_.name : spec_.queue;
    w.priority_class = spec_.priority_class;
    w.labels = labels_;  // Shared by every workload of the generator (model/label_map.h).
    w.tier = spec_.tier;
    w.kind = spec_.kind;
    w.gpu_model = gpu_model_;
    w.topology = spec_.topology;
    w.pod_group = spec_.pod_group;
    w.pod_interval = SecondsF(spec_.pod_creation_seconds);
    w.startup_jitter = SecondsF(spec_.startup_jitter_seconds);
    w.submit_time = at;
    const int gpus = std::max(1, static_cast<int>(std::lround(spec_.gpus_per_pod.Sample(rng_))));
    const int pods = std::max(1, static_cast<int>(std::lround(spec_.pods.Sample(rng_))));
    if (spec_.kind == model::WorkloadKind::kInference) {
      w.min_replicas = spec_.min_replicas;
      w.max_replicas = spec_.max_replicas;
      w.peak_hour = spec_.peak_hour;
      w.pod_sets = {{"replica", spec_.min_replicas, gpus}};
    } else if (!spec_.pod_sets.empty()) {
      // The long form: every pod set as declared (the draws above keep the random stream).
      for (const PodSetSpec& ps : spec_.pod_sets) {
        w.pod_sets.push_back({ps.name, ps.count, ps.gpus_per_pod});
        w.pod_sets.back().min_count = ps.min_count;
      }
    } else if (pods > 1) {
      // A distributed job: a gang of identical workers.
      w.pod_sets = {{"worker", pods, gpus}};
    } else {
      w.pod_sets = {{"main", 1, gpus}};
    }
    for (model::PodSet& ps : w.pod_sets) {
      ps.cpu_milli = spec_.cpu_milli;
      ps.memory_mib = spec_.memory_mib;
      if (!spec_.extended_resources.empty()) ps.extended_resources = spec_.extended_resources;
    }
    w.duration = SecondsF(spec_.duration_hours.Sample(rng_) * 3600);
    w.checkpoint_interval = SecondsF(spec_.checkpoint_interval_minutes * 60);
    w.restore_time = SecondsF(spec_.restore_minutes * 60);
    w.elastic = spec_.elastic;
    const UsageSpec& u = spec_.usage;
    w.usage.used_gpu_fraction = u.used_gpu_fraction.Sample(rng_);
    w.usage.busy = u.busy.Sample(rng_);
    // SM activity cannot exceed the share of time a kernel runs at all.
    w.usage.sm_active = std::min(u.sm_active.Sample(rng_), w.usage.busy);
    if (u.stall_period_minutes > 0) {
      w.usage.stall_period = SecondsF(u.stall_period_minutes * 60);
      w.usage.stall_fraction = u.stall_fraction.Sample(rng_);
    }
    const double active = u.active_hours.Sample(rng_);
    if (active >= 0) w.usage.active_duration = SecondsF(active * 3600);
    w.usage.idle_busy = u.idle_busy;
    // Drawn last so scenarios without sharing keep their random streams.
    const int milli =
        static_cast<int>(std::clamp<long>(std::lround(spec_.gpu_milli.Sample(rng_)), 1, 1000));
    for (model::PodSet& ps : w.pod_sets) {
      ps.gpu_milli = milli;
      ps.mig_profile = spec_.mig_profile;
    }
    RightSize(spec_.right_size, &w);
    return w;
  }

  const GeneratorSpec& spec_;
  const TeamSpec& team_;
  const int team_index_;
  const int gpu_model_;
  const SimTime horizon_;
  Rng rng_;
  model::LabelMap labels_;
  SimTime next_;
  int emitted_ = 0;
};

class ListSource final : public WorkloadSource {
 public:
  explicit ListSource(std::vector<model::Workload> w) : list_(std::move(w)) {}
  SimTime NextTime() const override {
    return next_ < list_.size() ? list_[next_].submit_time : SimTime::Never();
  }
  model::Workload Take() override { return std::move(list_[next_++]); }

 private:
  std::vector<model::Workload> list_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<WorkloadSource> NewGeneratorSource(const GeneratorSpec& spec, const TeamSpec& team,
                                                   int team_index, int gpu_model, SimTime horizon,
                                                   uint64_t seed) {
  return std::make_unique<GeneratorSource>(spec, team, team_index, gpu_model, horizon, seed);
}

std::unique_ptr<WorkloadSource> NewListSource(std::vector<model::Workload> workloads) {
  return std::make_unique<ListSource>(std::move(workloads));
}

}  // namespace steward::twin
