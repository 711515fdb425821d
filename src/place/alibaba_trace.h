// Loaders for the Alibaba GPU cluster trace v2023 ("openb") CSVs used by the FGD paper.
//
// Node list: sn, cpu_milli, memory_mib, gpu, model. Pod list: name, cpu_milli, memory_mib,
// num_gpu, gpu_milli, [gpu_spec, ...] (extra columns such as qos or times are ignored; the
// multigpu* lists have no gpu_spec). Columns are found by header name. Any malformed field is
// an error naming file, line, column and field; nothing is dropped silently.
// The placement interface does not depend on this file: it is one way to fill NodeSpecs and
// PodRequests.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "place/cluster_state.h"
#include "place/pod_request.h"

namespace steward::place {

struct TracePod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;
  int gpu_milli = 0;
  std::string gpu_spec;  // "" = any model, else "A|B".
};

Result<std::vector<NodeSpec>> ParseAlibabaNodes(std::string_view text, std::string_view file);
Result<std::vector<TracePod>> ParseAlibabaPods(std::string_view text, std::string_view file);
Result<std::vector<NodeSpec>> LoadAlibabaNodes(const std::filesystem::path& path);
Result<std::vector<TracePod>> LoadAlibabaPods(const std::filesystem::path& path);

// The pod's request against `cluster`'s GPU model names.
PodRequest ToRequest(const TracePod& pod, const ClusterState& cluster);

}  // namespace steward::place
