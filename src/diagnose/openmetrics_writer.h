// Writes frames as one OpenMetrics file for `promtool tsdb create-blocks-from openmetrics`, so a
// bundle (or a twin run) can be backfilled into a Prometheus and diagnosed through PromQL. It
// holds what the Prometheus source reads (kube_state_metrics.h): the DCGM fields the classifier
// uses, labelled as dcgm-exporter labels them, and the pods and nodes as kube-state-metrics
// series. OpenMetrics wants each series' samples together, so every point is buffered until
// Finish(): memory grows with GPUs x frames (meant for bundles, not months of a fleet).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "diagnose/frame.h"

namespace steward::diagnose {

class OpenMetricsWriter : public FrameSink {
 public:
  // Every pod and node label is written (as KSM with --metric-labels-allowlist=*).
  explicit OpenMetricsWriter(std::filesystem::path path);

  Status Consume(const Snapshot& raw, const Frame& frame, const Catalog& catalog) override;
  Status Finish(const Catalog& catalog) override;

  // The OpenMetrics text of everything consumed so far (what Finish() writes).
  std::string Render() const;

 private:
  void Add(const std::string& family, std::string labels, int64_t time_ms, double value);

  std::filesystem::path path_;
  struct Point {
    int64_t time_ms;
    double value;
  };
  // family -> rendered label set -> points in time order.
  std::map<std::string, std::map<std::string, std::vector<Point>>> series_;
};

}  // namespace steward::diagnose
