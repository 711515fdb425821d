// Where a rollout's gate metrics come from (docs/rollout.md, "Gates"). Two of the four built-in
// metrics are computed by the engine from what control::ClusterControl shows (schedulable GPUs
// of the batch, validator pass rate); the other two need node agents' signals, which a
// MetricSource supplies: the twin's from its XID and workload signals (twin_rollout.h), a live
// cluster's from Prometheus or not at all (nullopt: the measurement is an Error, and
// consecutiveErrorLimit decides).
//
//   double xids = *source.Xids("gpu-017", batch_upgraded_at, now);
//
// Thread-safety: the engine's thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/time.h"

namespace steward::rollout {

class MetricSource {
 public:
  virtual ~MetricSource() = default;
  // XIDs the node's GPUs logged in [from, to); nullopt = no XID source.
  virtual std::optional<double> Xids(const std::string& node, SimTime from, SimTime to) = 0;
  // Jobs on `nodes` that failed in [from, to) over jobs that ran there; nullopt = no source.
  virtual std::optional<double> JobFailureRate(const std::vector<std::string>& nodes, SimTime from,
                                               SimTime to) = 0;
};

// No node-agent signals (a live cluster without Prometheus): both metrics are Errors.
class NoMetrics final : public MetricSource {
 public:
  std::optional<double> Xids(const std::string&, SimTime, SimTime) override { return std::nullopt; }
  std::optional<double> JobFailureRate(const std::vector<std::string>&, SimTime, SimTime) override {
    return std::nullopt;
  }
};

}  // namespace steward::rollout
