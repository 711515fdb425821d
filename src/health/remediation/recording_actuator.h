// RecordingActuator: a NodeActuator over an in-memory map of node -> workloads that records
// every call. Tests use it as the fake; a CLI demo or a scenario without a twin can use it as
// a stand-in cluster. Evicted workloads leave the listing at once unless hold_evicted is set
// (then the caller removes them with Remove(), modelling the grace period).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "health/remediation/node_actuator.h"

namespace steward::health {

class RecordingActuator : public NodeActuator {
 public:
  // One call, as text: "cordon n1", "evict n1 job-a 300s", "ticket #3 rack-2", "diag n1".
  const std::vector<std::string>& log() const { return log_; }
  void ClearLog() { log_.clear(); }

  void SetWorkloads(const std::string& node, std::vector<NodeWorkload> workloads);
  void Remove(const std::string& node, const std::string& workload);
  void set_hold_evicted(bool hold) { hold_evicted_ = hold; }
  // The next `times` calls of `op` ("cordon", "uncordon", "list", "evict", "ticket", "diag")
  // fail with IoError.
  void FailNext(const std::string& op, int times = 1) { fail_[op] += times; }

  bool cordoned(const std::string& node) const { return cordoned_.count(node) > 0; }
  // Distinct tickets filed (OpenTicket is idempotent on Ticket::id).
  int tickets_filed() const { return static_cast<int>(refs_.size()); }
  const std::map<TicketId, Ticket>& filed() const { return filed_; }

  Status Cordon(std::string_view node) override;
  Status Uncordon(std::string_view node) override;
  Result<std::vector<NodeWorkload>> ListWorkloads(std::string_view node) override;
  Status Evict(std::string_view node, const NodeWorkload& workload, SimDuration grace) override;
  Result<std::string> OpenTicket(const Ticket& ticket) override;
  Status RunDiagnostic(std::string_view node) override;

 private:
  bool ShouldFail(const std::string& op);

  std::vector<std::string> log_;
  std::map<std::string, std::vector<NodeWorkload>, std::less<>> workloads_;
  std::set<std::string, std::less<>> cordoned_;
  std::map<TicketId, std::string> refs_;
  std::map<TicketId, Ticket> filed_;
  std::map<std::string, int> fail_;
  bool hold_evicted_ = false;
};

}  // namespace steward::health
