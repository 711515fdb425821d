// RolloutPlan: a gated rollout of one GPU-stack component (driver, container toolkit, device
// plugin, dcgm-exporter, MIG layout), read from YAML kept in Git (docs/rollout.md, "Plan").
//
//   Result<RolloutPlan> plan = LoadPlan("rollouts/driver-570.yaml");
//   if (!plan.ok()) print(plan.status());   // "FILE:LINE: batches[1].percent: must be 1..100"
//
// Parsing only: batch selection is batches.h, gate rules gate.h, the run engine.h.
// Cost: one YAML parse. Thread-safety: plain data.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/status.h"
#include "model/time.h"

namespace steward::rollout {

enum class Component : uint8_t { kDriver, kToolkit, kDevicePlugin, kDcgmExporter, kMigConfig };
std::string_view ComponentName(Component c);  // "driver", "toolkit", ..., "mig-config".

// One step of the rollout. Exactly one way of choosing nodes; nodes already taken by an earlier
// batch are never taken again.
struct BatchSpec {
  std::string name;
  std::vector<std::string> nodes;   // Explicit node names (canary nodes).
  int size = 0;                     // Or N more nodes ...
  double percent = 0;               // ... or P% of the selected nodes, rounded up ...
  std::string rack;                 // ... or the nodes of one rack (label steward.io/rack) ...
  std::string pool;                 // ... or of one pool (label steward.io/pool) ...
  bool rest = false;                // ... or every node left.
  std::optional<SimDuration> soak;  // Default: the plan's soak.
  int line = 0;
};

// A gate, with Argo Rollouts' analysis rules (docs/rollout.md, "Gates").
struct GateSpec {
  std::string name;
  std::string metric;  // schedulable_gpus | xid_rate_delta | job_failure_rate | validator_pass_rate
  std::string success_condition, failure_condition;  // "result >= 0.95"; "" = unset.
  int count = 1;                                     // Measurements per batch.
  SimDuration interval = Minutes(10);                // Between measurements.
  int failure_limit = 0, inconclusive_limit = 0, consecutive_error_limit = 4;
  int line = 0;
};

struct RolloutPlan {
  std::string file;  // Where it was read from (errors, the Git commit).
  std::string name;
  Component component = Component::kDriver;
  std::string version;           // Target version (or MIG layout name).
  std::string previous_version;  // The version rollback returns to ("" = each node's own).
  std::string scenario;          // Twin scenario for `rollout run` without one (relative path).
  std::map<std::string, std::string> selector;  // Node labels every target node has.
  // Explicit target nodes as well (a gated faults.driver_rollouts batch of the twin,
  // scenario_rollouts.h); empty = every node with the selector's labels. Not read from YAML.
  std::vector<std::string> nodes;
  std::vector<BatchSpec> batches;
  int max_parallel = 1;  // Nodes upgrading at once (0 = no limit), as maxParallelUpgrades.
  // As the GPU Operator's maxUnavailable: a count, or percent of the target nodes rounded up.
  int max_unavailable = 0;
  double max_unavailable_percent = 25;  // Used when max_unavailable is 0.
  SimDuration soak = Hours(1);
  SimDuration tick = Minutes(1);                  // How often the engine steps.
  SimDuration restart_time = Minutes(5);          // The driver pod's restart (twin).
  SimDuration validation_timeout = Seconds(600);  // validation-required -> upgrade-failed.
  SimDuration mig_pending_timeout = Minutes(15);  // mig.config.state pending -> failed.
  SimDuration wait_for_jobs_timeout = SimDuration::Micros(0);  // 0: evict at once.
  SimDuration pod_deletion_timeout = Seconds(300);             // -> drain-required.
  SimDuration drain_timeout = Seconds(1800);                   // -> upgrade-failed.
  SimDuration checkpoint_grace = Seconds(300);  // Eviction grace of checkpointing pods.
  SimDuration eviction_grace = Seconds(30);     // ... of the others.
  std::vector<GateSpec> gates;

  // The label the component's version is selected by (an NVIDIADriver CR's nodeSelector for the
  // driver; nvidia.com/mig.config for MIG).
  std::string VersionLabel() const;
  int MaxUnavailable(int target_nodes) const;  // Resolved count, percent rounded up.
};

inline constexpr char kUpgradeStateLabel[] = "nvidia.com/gpu-driver-upgrade-state";
inline constexpr char kMigConfigLabel[] = "nvidia.com/mig.config";
inline constexpr char kMigStateLabel[] = "nvidia.com/mig.config.state";

Result<RolloutPlan> ParsePlan(const std::string& yaml_text, const std::string& file);
Result<RolloutPlan> LoadPlan(const std::string& path);

// "90s", "15m", "2h", "1d" or a number of seconds.
Result<SimDuration> ParsePlanDuration(const std::string& text);

}  // namespace steward::rollout
