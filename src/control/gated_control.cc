#include "control/gated_control.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::control {
namespace {

std::string Setting(std::string_view key, const std::optional<std::string>& value) {
  return value ? fmt::format("{}={}", key, *value) : fmt::format("{} unset", key);
}

std::string TaintText(const model::Taint& t) {
  return t.value.empty() ? fmt::format("{}:{}", t.key, t.effect)
                         : fmt::format("{}={}:{}", t.key, t.value, t.effect);
}

}  // namespace

std::string_view ModeName(GateOptions::Mode mode) {
  switch (mode) {
    case GateOptions::Mode::kPlan:
      return "planned";
    case GateOptions::Mode::kServerDryRun:
      return "server-dry-run";
    case GateOptions::Mode::kApply:
      return "applied";
  }
  return "?";
}

GatedControl::GatedControl(ClusterControl& inner, store::AuditLog* log, GateOptions options)
    : inner_(inner), log_(log), options_(std::move(options)) {}

void GatedControl::Record(store::AuditRow row) {
  row.at_micros = options_.now_micros ? options_.now_micros() : inner_.Now().micros();
  ++recorded_;
  if (log_) {
    Result<int64_t> id = log_->Append(row);
    if (id.ok())
      row.id = *id;
    else if (log_status_.ok())
      log_status_ = id.status();
  }
  if (options_.on_record) options_.on_record(row);
}

Status GatedControl::Gate(std::string_view action, const std::string& object,
                          std::string_view reason, std::string before, std::string after,
                          const std::function<Status()>& act) {
  store::AuditRow row;
  row.action = intent_.empty() ? std::string(action) : intent_;
  row.object = object;
  row.reason = std::string(reason);
  row.before = std::move(before);
  row.after = std::move(after);

  std::string refusal;
  if (options_.paused && options_.paused())
    refusal = "paused: the pause switch is on";
  else if (options_.is_leader && !options_.is_leader())
    refusal = "not the leader: another replica holds the lease";
  if (!refusal.empty()) {
    if (refusal != refusal_) {  // Once per change, not once per attempt.
      refusal_ = refusal;
      row.mode = "failed";
      row.error = refusal;
      Record(row);
    }
    return Status::FailedPrecondition(refusal);
  }
  refusal_.clear();

  const bool plan = options_.mode == GateOptions::Mode::kPlan;
  const auto plan_key = std::make_tuple(row.action, row.object, row.before, row.after);
  if (plan && planned_.count(plan_key)) return Status::Ok();  // Planned already, unchanged.

  if (action == "evict") {
    const SimTime now = inner_.Now();
    while (!evictions_.empty() && evictions_.front() + Minutes(1) <= now) evictions_.pop_front();
    if (static_cast<int>(evictions_.size()) >= options_.max_evictions_per_minute)
      return Status::Unavailable(
          fmt::format("eviction cap: {} evictions in the last minute (max {}); retry later",
                      evictions_.size(), options_.max_evictions_per_minute));
    evictions_.push_back(now);
  }

  if (plan) {
    planned_.insert(plan_key);
    row.mode = std::string(ModeName(options_.mode));
    Record(std::move(row));
    return Status::Ok();
  }
  Status s = act();
  row.mode = s.ok() ? std::string(ModeName(options_.mode)) : "failed";
  if (!s.ok()) row.error = s.ToString();
  Record(std::move(row));
  return s;
}

Status GatedControl::Cordon(std::string_view node, bool cordoned, std::string_view reason) {
  std::optional<NodeInfo> n = inner_.Node(node);
  const std::string before = !n ? "absent" : n->unschedulable ? "unschedulable" : "schedulable";
  return Gate(cordoned ? "cordon" : "uncordon", ObjectRef{"Node", "", std::string(node)}.Display(),
              reason, before, cordoned ? "unschedulable" : "schedulable",
              [&] { return inner_.Cordon(node, cordoned, reason); });
}

Status GatedControl::LabelNode(std::string_view node, std::string_view key,
                               std::optional<std::string> value, std::string_view reason) {
  std::optional<NodeInfo> n = inner_.Node(node);
  std::optional<std::string> old;
  if (n) {
    auto it = n->labels.find(std::string(key));
    if (it != n->labels.end()) old = it->second;
  }
  return Gate("label", ObjectRef{"Node", "", std::string(node)}.Display(), reason,
              Setting(key, old), Setting(key, value),
              [&] { return inner_.LabelNode(node, key, value, reason); });
}

Status GatedControl::TaintNode(std::string_view node, const model::Taint& taint, bool remove,
                               std::string_view reason) {
  std::optional<NodeInfo> n = inner_.Node(node);
  const bool present =
      n && std::any_of(n->taints.begin(), n->taints.end(), [&](const model::Taint& t) {
        return t.key == taint.key && t.effect == taint.effect;
      });
  const std::string text = TaintText(taint);
  return Gate("taint", ObjectRef{"Node", "", std::string(node)}.Display(), reason,
              present ? text : "no " + text, remove ? "no " + text : text,
              [&] { return inner_.TaintNode(node, taint, remove, reason); });
}

Status GatedControl::Annotate(const ObjectRef& object, std::string_view key,
                              std::optional<std::string> value, std::string_view reason) {
  std::optional<std::string> old;
  if (object.kind == "Node")
    if (std::optional<NodeInfo> n = inner_.Node(object.name)) {
      auto it = n->annotations.find(std::string(key));
      if (it != n->annotations.end()) old = it->second;
    }
  return Gate("annotate", object.Display(), reason, Setting(key, old), Setting(key, value),
              [&] { return inner_.Annotate(object, key, value, reason); });
}

Status GatedControl::Evict(const PodRef& pod, SimDuration grace, std::string_view reason) {
  return Gate("evict", ObjectRef{"Pod", pod.namespace_name, pod.name}.Display(), reason, "running",
              fmt::format("evicted (grace {}s)", grace.micros() / 1000000),
              [&] { return inner_.Evict(pod, grace, reason); });
}

Status GatedControl::EmitEvent(const ObjectRef& object, std::string_view type,
                               std::string_view event_reason, std::string_view message) {
  return Gate("event", object.Display(), message, "", fmt::format("{} {}", type, event_reason),
              [&] { return inner_.EmitEvent(object, type, event_reason, message); });
}

namespace {

// "h100 nvidia.com/gpu: nominal 32, borrowing 8, lending none".
std::string QuotaText(const QueueQuota& q) {
  return fmt::format("{} {}: nominal {}, borrowing {}, lending {}", q.flavor, q.resource, q.nominal,
                     q.borrowing_limit.value_or("none"), q.lending_limit.value_or("none"));
}

}  // namespace

Status GatedControl::PatchQueueQuota(std::string_view queue, std::string_view resource_version,
                                     const QueueQuota& quota, std::string_view reason) {
  std::string before = "absent";
  for (const QueueInfo& q : inner_.ClusterQueues())
    if (q.name == queue)
      for (const QueueQuota& c : q.quotas)
        if (c.flavor == quota.flavor && c.resource == quota.resource) before = QuotaText(c);
  return Gate("patch-quota", ObjectRef{"ClusterQueue", "", std::string(queue)}.Display(), reason,
              before, QuotaText(quota),
              [&] { return inner_.PatchQueueQuota(queue, resource_version, quota, reason); });
}

Status GatedControl::ResizeWorkload(std::string_view workload, int workers,
                                    std::string_view reason) {
  const size_t slash = workload.find('/');
  const ObjectRef job{"Job", std::string(workload.substr(0, slash)),
                      slash == std::string_view::npos ? std::string(workload)
                                                      : std::string(workload.substr(slash + 1))};
  // The count before is what the cluster shows; the gate does not list every node to find it.
  return Gate("resize", job.Display(), reason, "", fmt::format("workers={}", workers),
              [&] { return inner_.ResizeWorkload(workload, workers, reason); });
}

}  // namespace steward::control
