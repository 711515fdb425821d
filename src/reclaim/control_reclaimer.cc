#include "reclaim/control_reclaimer.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "kube/json_decoder.h"
#include "reclaim/reclaim_policy.h"

namespace steward::reclaim {
namespace {

std::string Gpus(double n) { return fmt::format("{:g} GPU{}", n, n == 1 ? "" : "s"); }

// "45 s", "30 min", "2.5 h".
std::string Span(SimDuration d) {
  const double s = d.ToHours() * 3600;
  if (s < 120) return fmt::format("{:g} s", std::round(s));
  if (s < 3 * 3600) return fmt::format("{:g} min", std::round(s / 6) / 10);
  return fmt::format("{:g} h", std::round(s / 360) / 10);
}

}  // namespace

struct ControlReclaimer::Workload {
  std::vector<control::PodInfo> pods;
  int rank = 0;
  bool exempt = false;
  bool judged = true;  // Every pod has a DCGM reading.
  double gpus = 0, sm_active_sum = 0;
  std::optional<int64_t> noticed_since;  // The earliest idle-since annotation, Unix micros.
};

ControlReclaimer::ControlReclaimer(ControlReclaimerOptions options,
                                   control::ClusterControl& control)
    : options_(std::move(options)),
      control_(&control),
      streaks_(NotifyAfter(options_.spec), ReclaimAfter(options_.spec)) {}

Result<ControlReclaimer> ControlReclaimer::Create(ControlReclaimerOptions options,
                                                  control::ClusterControl& control) {
  STEWARD_RETURN_IF_ERROR(CheckReclaimSpec(options.spec));
  return ControlReclaimer(std::move(options), control);
}

Status ControlReclaimer::Pass(const std::map<std::string, double>& sm_active) {
  const SimTime now = control_->Now();
  std::map<std::string, Workload> workloads;
  for (const control::NodeInfo& node : control_->Nodes()) {
    for (control::PodInfo& p : control_->PodsOnNode(node.name)) {
      if (!p.running || p.gpus <= 0) continue;
      const int rank = KindRank(options_.spec, p.kind);
      if (rank < 0) continue;
      Workload& w =
          workloads[p.workload.empty() ? p.ref.namespace_name + "/" + p.ref.name : p.workload];
      w.rank = rank;
      w.exempt = w.exempt || IsExempt(options_.spec, p.labels);
      auto usage = sm_active.find(p.ref.namespace_name + "/" + p.ref.name);
      if (usage == sm_active.end()) {
        w.judged = false;
      } else {
        w.gpus += p.gpus;
        w.sm_active_sum += usage->second * p.gpus;
      }
      if (auto a = p.annotations.find(kIdleSinceAnnotation); a != p.annotations.end())
        if (std::optional<int64_t> t = kube::ParseTime(a->second))
          if (!w.noticed_since || *t < *w.noticed_since) w.noticed_since = t;
      w.pods.push_back(std::move(p));
    }
  }

  Status first;
  auto note = [&](const Status& s) {
    if (!s.ok() && s.code() != Status::Code::kNotFound && first.ok()) first = s;
  };
  stats_.idle_workloads = stats_.unjudged_workloads = 0;
  for (const auto& [key, w] : workloads) {
    if (!w.judged) {
      ++stats_.unjudged_workloads;
      continue;
    }
    const bool idle = IsIdle(options_.spec, w.sm_active_sum, w.gpus);
    stats_.idle_workloads += idle;
    if (idle && !streaks_.IsOpen(key) && w.noticed_since) {
      // Noticed by an earlier run of this controller: resume, do not notice again.
      streaks_.Open(key, SimTime::FromMicros(*w.noticed_since), w.rank, w.exempt, /*noticed=*/true);
      continue;
    }
    streaks_.Observe(key, idle, w.rank, w.exempt, now);
    if (!idle && w.noticed_since) {
      // Busy again after a notice: withdraw it, so a later streak starts afresh.
      control::IntentScope intent(*control_, "reclaim-cancel");
      for (const control::PodInfo& p : w.pods)
        note(control_->Annotate({"Pod", p.ref.namespace_name, p.ref.name}, kIdleSinceAnnotation,
                                std::nullopt, "idle reclaim: the GPUs are busy again"));
    }
  }
  for (const std::string& key : streaks_.OpenKeys())
    if (!workloads.count(key)) streaks_.Close(key);  // Gone (finished, evicted, rescheduled).

  while (std::optional<IdleStreaks<std::string>::Due> due = streaks_.PopNext(now)) {
    const Workload& w = workloads.at(due->key);
    switch (due->step) {
      case IdleStreaks<std::string>::Step::kNotify:
        note(Notify(w, due->since));
        break;
      case IdleStreaks<std::string>::Step::kExempt:
        ++stats_.exempted;
        break;
      case IdleStreaks<std::string>::Step::kReclaim:
        note(Reclaim(due->key, w, due->since, now));
        break;
    }
  }
  return first;
}

Status ControlReclaimer::Notify(const Workload& w, SimTime since) {
  control::IntentScope intent(*control_, "reclaim-notice");
  const SimTime at = since + streaks_.reclaim_after();
  const std::string reason =
      fmt::format("idle reclaim: SM-active {:.1f}% over {}, under {:.1f}%, since {}",
                  w.gpus > 0 ? 100 * w.sm_active_sum / w.gpus : 0.0, Gpus(w.gpus),
                  100 * options_.spec.idle_sm_active_below, kube::FormatTime(since.micros()));
  for (const control::PodInfo& p : w.pods)
    STEWARD_RETURN_IF_ERROR(control_->Annotate({"Pod", p.ref.namespace_name, p.ref.name},
                                               kIdleSinceAnnotation,
                                               kube::FormatTime(since.micros()), reason));
  std::string exemption;
  if (!options_.spec.exempt_labels.empty()) {
    const auto& [k, v] = *options_.spec.exempt_labels.begin();
    exemption = fmt::format("; label a pod {}={} to keep it", k, v == "*" ? "<any>" : v);
  }
  const control::PodInfo& first = w.pods.front();
  ++stats_.notices;
  return control_->EmitEvent(
      {"Pod", first.ref.namespace_name, first.ref.name}, "Warning", "IdleGPUReclaimNotice",
      fmt::format("{}; its GPUs will be reclaimed at {} unless they are used{}", reason,
                  kube::FormatTime(at.micros()), exemption));
}

Status ControlReclaimer::Reclaim(const std::string& key, const Workload& w, SimTime since,
                                 SimTime now) {
  control::IntentScope intent(*control_, "reclaim-evict");
  const std::string reason =
      fmt::format("idle reclaim: {} idle (SM-active {:.1f}% < {:.1f}%) for {}", Gpus(w.gpus),
                  w.gpus > 0 ? 100 * w.sm_active_sum / w.gpus : 0.0,
                  100 * options_.spec.idle_sm_active_below, Span(now - since));
  bool refused = false;
  Status first;
  for (const control::PodInfo& p : w.pods) {
    const SimDuration grace = p.can_checkpoint ? options_.checkpoint_grace : options_.grace;
    Status s = control_->Evict(p.ref, grace, reason);
    if (s.code() == Status::Code::kUnavailable) {
      refused = true;
    } else if (!s.ok() && s.code() != Status::Code::kNotFound && first.ok()) {
      first = s;
    }
  }
  if (refused) {
    ++stats_.retries;
    streaks_.RetryReclaim(key, now + options_.retry_after);
    return first;
  }
  ++stats_.reclaims;
  const control::PodInfo& p = w.pods.front();
  Status e = control_->EmitEvent({"Pod", p.ref.namespace_name, p.ref.name}, "Warning",
                                 "IdleGPUReclaimed", reason);
  return first.ok() ? e : first;
}

}  // namespace steward::reclaim
