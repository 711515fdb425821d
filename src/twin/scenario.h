// A twin scenario: the cluster's shape, the teams, the workload generators and traces, the
// policies, the horizon and the seed. Loaded from YAML (see examples/default.yaml, documented
// field by field in docs/scenario.md); every error names the file, line and field.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.h"
#include "model/status.h"
#include "model/workload.h"
#include "twin/distribution.h"

namespace steward::twin {

struct GpuModelSpec {
  std::string name;
  std::string product_label;
  int memory_mib = 81559;
  bool mig_capable = false;
};

struct PoolSpec {
  std::string name;
  int nodes = 0;
  int gpus_per_node = 8;
  std::string gpu_model;
  int nodes_per_rack = 4;
  int nodes_per_leaf = 32;       // Scalable unit / leaf switch group.
  bool nvlink_per_rack = false;  // false: one NVLink domain per node (HGX); true: per rack (NVL72).
  int64_t cpu_milli = 224000;
  int64_t memory_mib = 2097152;
  std::string driver_version = "550.90.07";
  std::string toolkit_version = "1.16.1";
  std::string device_plugin_version = "0.16.1";
  std::map<std::string, std::string> labels;
  std::vector<model::Taint> taints;
};

struct TeamSpec {
  std::string name;
  std::string namespace_name;  // Defaults to the name.
  int quota_gpus = 0;          // Nominal GPU quota of the team's queue (0 = none may run).
};

struct ArrivalSpec {
  enum class Process { kPoisson, kOnce };
  Process process = Process::kPoisson;
  double rate_per_hour = 1;      // Mean arrivals per hour (kPoisson).
  double diurnal_amplitude = 0;  // 0..1: rate × (1 + a·cos(2π(h − peak)/24)).
  double peak_hour = 14;
  double start_hours = 0;  // No arrivals before this.
  int count = 1;           // kOnce: how many arrive at start_hours.
};

struct UsageSpec {
  Distribution used_gpu_fraction = Distribution::Constant(1.0);
  Distribution busy = Distribution::Constant(0.9);
  Distribution sm_active = Distribution::Constant(0.5);
  double stall_period_minutes = 0;
  Distribution stall_fraction = Distribution::Constant(0);
  // Notebooks: hours of real work before the session idles while holding its GPU.
  // Absent (negative) means it never idles.
  Distribution active_hours = Distribution::Constant(-1);
  double idle_busy = 0.0;
};

struct GeneratorSpec {
  std::string name;
  std::string team;
  std::string queue;  // LocalQueue (or Volcano Queue) the workloads name; "" = the team's name.
  model::WorkloadKind kind = model::WorkloadKind::kBatch;
  std::string
      priority_class;  // Defaults by kind: inference→production, training→training, else dev.
  model::Tier tier = model::Tier::kDev;
  ArrivalSpec arrival;
  Distribution pods = Distribution::Constant(1);
  Distribution gpus_per_pod = Distribution::Constant(1);
  Distribution duration_hours = Distribution::Constant(1);
  double checkpoint_interval_minutes = 0;  // 0 = never checkpoints.
  double restore_minutes = 0;
  std::string gpu_model;  // "" = any.
  model::TopologyPreference topology = model::TopologyPreference::kNone;
  UsageSpec usage;
  // Inference services: replica range over the day.
  int min_replicas = 1;
  int max_replicas = 1;
  double peak_hour = 14;
};

// A job trace to replay (CSV), in Steward's format or the Alibaba GPU trace's pod list.
struct TraceSpec {
  enum class Format { kSteward, kAlibaba };
  Format format = Format::kSteward;
  std::filesystem::path path;
  std::string team;         // Alibaba pods have no team: they all go to this one.
  std::string queue;        // Alibaba: the queue they name ("" = the team's name).
  double time_scale = 1.0;  // Multiplies trace times (compress or stretch the trace).
};

struct PolicySpec {
  std::string admission = "fifo-quota";
  std::string placement = "first-fit";
  double startup_seconds = 90;  // Image pull + container start, GPUs held but idle.
  // Kueue / Volcano YAML files (relative to the scenario) that govern admission; setting them
  // selects the "kueue" admitter. `steward twin run --policy FILE...` overrides them.
  std::vector<std::filesystem::path> governance;
  std::string victim_ordering = "checkpoint-aware";  // See govern/victim_ordering.h.
  // The guide's "single tenant over threshold" alert: a team holding more than this share of
  // the cluster's GPUs at a sample raises an alert in the report.
  double alert_tenant_share = 0.5;
};

struct FailureSpec {
  // Training job interruptions per GPU-hour. Default from the Llama 3 report: 419 unexpected
  // interruptions in 54 days on 16,384 GPUs = 1.97e-5 per GPU-hour (docs/calibration.md).
  double training_interruptions_per_gpu_hour = 419.0 / (54 * 24 * 16384.0);
};

struct Scenario {
  std::string name = "scenario";
  std::string source;  // File the scenario came from (for messages and reports).
  uint64_t seed = 1;
  double horizon_days = 7;
  double sample_minutes = 60;  // Time-series resolution of the report.
  std::vector<GpuModelSpec> gpu_models;
  std::vector<PoolSpec> pools;
  // Alternatively (or in addition) the nodes of an Alibaba v2023 node list CSV
  // (sn,cpu_milli,memory_mib,gpu,model): one pool per GPU model, racks of 4, leaves of 32.
  std::filesystem::path alibaba_nodes;
  std::vector<TeamSpec> teams;
  std::vector<GeneratorSpec> generators;
  std::vector<TraceSpec> traces;
  PolicySpec policies;
  FailureSpec failures;

  int FindTeam(std::string_view name) const;
};

// Parses a scenario. `source` names the text in error messages (a path or "<default>").
Result<Scenario> ParseScenario(std::string_view yaml_text, std::string_view source);
Result<Scenario> LoadScenario(const std::filesystem::path& path);
// The built-in 10,240-GPU scenario (examples/default.yaml, embedded at build time).
Scenario DefaultScenario();
std::string_view DefaultScenarioYaml();

// Builds the cluster a scenario describes (node names "<pool>-<index>", racks and leaves
// numbered cluster-wide in pool order).
Result<model::Cluster> BuildCluster(const Scenario& scenario);

}  // namespace steward::twin
