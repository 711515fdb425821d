#include "health/remediation/recording_actuator.h"

#include <fmt/format.h>

#include <algorithm>

namespace steward::health {

bool RecordingActuator::ShouldFail(const std::string& op) {
  auto it = fail_.find(op);
  if (it == fail_.end() || it->second == 0) return false;
  --it->second;
  log_.push_back(op + " FAILED");
  return true;
}

void RecordingActuator::SetWorkloads(const std::string& node, std::vector<NodeWorkload> ws) {
  workloads_[node] = std::move(ws);
}

void RecordingActuator::Remove(const std::string& node, const std::string& workload) {
  auto it = workloads_.find(node);
  if (it == workloads_.end()) return;
  auto& v = it->second;
  v.erase(
      std::remove_if(v.begin(), v.end(), [&](const NodeWorkload& w) { return w.id == workload; }),
      v.end());
}

Status RecordingActuator::Cordon(std::string_view node) {
  if (ShouldFail("cordon")) return Status::IoError("injected cordon failure");
  log_.push_back(fmt::format("cordon {}", node));
  cordoned_.insert(std::string(node));
  return Status::Ok();
}

Status RecordingActuator::Uncordon(std::string_view node) {
  if (ShouldFail("uncordon")) return Status::IoError("injected uncordon failure");
  log_.push_back(fmt::format("uncordon {}", node));
  if (auto it = cordoned_.find(node); it != cordoned_.end()) cordoned_.erase(it);
  return Status::Ok();
}

Result<std::vector<NodeWorkload>> RecordingActuator::ListWorkloads(std::string_view node) {
  if (ShouldFail("list")) return Status::IoError("injected list failure");
  auto it = workloads_.find(node);
  if (it == workloads_.end()) return std::vector<NodeWorkload>{};
  return it->second;
}

Status RecordingActuator::Evict(std::string_view node, const NodeWorkload& w, SimDuration grace) {
  if (ShouldFail("evict")) return Status::IoError("injected evict failure");
  log_.push_back(fmt::format("evict {} {} {}s", node, w.id, grace.micros() / 1'000'000));
  if (!hold_evicted_) Remove(std::string(node), w.id);
  return Status::Ok();
}

Result<std::string> RecordingActuator::OpenTicket(const Ticket& t) {
  if (ShouldFail("ticket")) return Status::IoError("injected ticket failure");
  log_.push_back(fmt::format("ticket #{} {}", t.id, t.subject));
  auto [it, inserted] = refs_.emplace(t.id, fmt::format("EXT-{}", t.id));
  if (inserted) filed_[t.id] = t;
  return it->second;
}

Status RecordingActuator::RunDiagnostic(std::string_view node) {
  if (ShouldFail("diag")) return Status::IoError("injected diagnostic failure");
  log_.push_back(fmt::format("diag {}", node));
  return Status::Ok();
}

}  // namespace steward::health
