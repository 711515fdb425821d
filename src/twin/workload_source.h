// Where workloads come from: generators (random arrival processes over distributions) or
// replayed traces. A source yields workloads in submit-time order; the twin pulls one at a
// time, so a run with 10^6 workloads never holds them all in memory before they arrive.
#pragma once

#include <memory>
#include <vector>

#include "model/cluster.h"
#include "model/status.h"
#include "model/workload.h"
#include "twin/scenario.h"

namespace steward::twin {

class WorkloadSource {
 public:
  virtual ~WorkloadSource() = default;
  WorkloadSource() = default;
  WorkloadSource(const WorkloadSource&) = delete;
  WorkloadSource& operator=(const WorkloadSource&) = delete;

  // Submit time of the next workload, or SimTime::Never() when exhausted.
  virtual SimTime NextTime() const = 0;
  // REQUIRES: NextTime() is not Never(). Returns the next workload (its id is left 0).
  virtual model::Workload Take() = 0;
};

// A generator's arrivals until `horizon`. `team` and `gpu_model` are resolved indices
// (gpu_model -1 = any). The stream depends only on (seed, generator index).
std::unique_ptr<WorkloadSource> NewGeneratorSource(const GeneratorSpec& spec, const TeamSpec& team,
                                                   int team_index, int gpu_model, SimTime horizon,
                                                   uint64_t seed);

// A fixed list (e.g. a loaded trace); REQUIRES: sorted by submit_time.
std::unique_ptr<WorkloadSource> NewListSource(std::vector<model::Workload> workloads);

}  // namespace steward::twin
