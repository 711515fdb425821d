// An offline bundle: what a cluster showed over a window, as files a collector can write with
// curl and kubectl, diagnosed without any server. The layout (docs/diagnose.md):
//
//   DIR/bundle.json                  optional: {"format": "steward-diagnose-bundle/1",
//                                     "step_seconds": 300, ...}
//   DIR/scrapes/<unix-ms>.prom       one dcgm-exporter scrape per instant (text 0.0.4 or
//                                     OpenMetrics; sample timestamps optional)
//   DIR/pods/<unix-ms>.json          `kubectl get pods -A -o json` snapshots, or one pods.json
//   DIR/nodes/<unix-ms>.json         `kubectl get nodes -o json` snapshots, or one nodes.json
//
// Each scrape is a frame; the pods and nodes in effect for it are the latest snapshot at or
// before its time (pods.json / nodes.json: the same for every frame).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/frame.h"

namespace steward::diagnose {

inline constexpr char kBundleFormat[] = "steward-diagnose-bundle/1";

class BundleReader {
 public:
  // Lists the bundle and settles the step: `step_ms` if given, else bundle.json's step_seconds,
  // else the median spacing of the scrapes. Errors name the file.
  static Result<BundleReader> Open(const std::filesystem::path& dir,
                                   std::optional<int64_t> step_ms = std::nullopt);

  int64_t step_ms() const { return step_ms_; }
  size_t scrapes() const { return scrapes_.size(); }
  // Parses every scrape in time order and feeds it, with its objects, to `builder`. A malformed
  // metric line, pod or node fails the whole run with "FILE:LINE:COL: ..." or the item/field.
  Status Run(FrameBuilder& builder) const;

 private:
  std::filesystem::path dir_;
  int64_t step_ms_ = 0;
  std::map<int64_t, std::filesystem::path> scrapes_;
  std::map<int64_t, std::filesystem::path> pods_, nodes_;  // Snapshots by time.
  std::optional<std::filesystem::path> pods_file_, nodes_file_;
};

// Writes frames as a bundle (any source can be saved; the twin's is the equivalence test's
// input). The scrapes are the source's DCGM records in dcgm-exporter's layout, each sample
// stamped with the frame's time; pods are written every frame, nodes when they change.
class BundleWriter : public FrameSink {
 public:
  // Creates DIR (and scrapes/, pods/, nodes/); refuses a DIR that already has scrapes/.
  static Result<std::unique_ptr<BundleWriter>> Create(const std::filesystem::path& dir,
                                                      int64_t step_ms, std::string source);

  Status Consume(const Snapshot& raw, const Frame& frame, const Catalog& catalog) override;
  Status Finish(const Catalog& catalog) override;

 private:
  BundleWriter(std::filesystem::path dir, int64_t step_ms, std::string source)
      : dir_(std::move(dir)), step_ms_(step_ms), source_(std::move(source)) {}
  std::filesystem::path dir_;
  int64_t step_ms_;
  std::string source_;
  std::string last_nodes_;
  int frames_ = 0;
  int64_t first_ms_ = 0, last_ms_ = 0;
};

// Writes `text` to `path` (truncating); errors name the path.
Status WriteFile(const std::filesystem::path& path, std::string_view text);
Result<std::string> ReadFile(const std::filesystem::path& path);

}  // namespace steward::diagnose
