// The guide's case-1 playbook ("finance says utilization is 35%") as a function: allocation
// vs real (SM-active) utilization, waste in GPU-hours and money by cause, top wasters by team
// and workload, and concrete recommendations.
//
// Input is per-workload usage over a period (UsageInput) plus cluster capacity and idle-time
// figures; every source (the twin today; Prometheus and offline bundles map onto the same
// structs) goes through Diagnose(), so one code path decides.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace steward::diagnose {

// What one workload did with its GPUs over the period, in GPU-hours.
struct UsageInput {
  std::string workload;
  std::string team;
  std::string kind;  // inference, training, notebook, batch.
  std::string gpu_model;
  double allocated = 0;
  double busy = 0;
  double sm_active = 0;
  double zombie = 0;        // Held while idle (memory held, SM ~0).
  double over_request = 0;  // Requested, never driven.
  double data_stall = 0;    // Driven, waiting for data (GPU_UTIL periodically 0).
  double startup = 0;       // Held while starting.
};

struct ClusterInput {
  double capacity_gpu_hours = 0;
  // Free GPU-hours on partly used nodes while work was pending (stranded by fragmentation).
  double stranded_gpu_hours = 0;
  // Free GPU-hours while work waited on quota (capacity idle, queue blocked).
  double queueing_gpu_hours = 0;
  double usd_per_gpu_hour = 0;
};

struct Thresholds {
  // A workload whose SM-active share of its driven GPU-hours is below this counts the rest of
  // those hours as low efficiency (batch too small, model too small, communication bound).
  double low_sm_efficiency = 0.30;
  // A cause is worth a recommendation when it wastes at least this share of allocated hours.
  double recommend_share = 0.02;
  int top_n = 5;
};

struct Diagnosis {
  double allocation_rate = 0;
  double busy_utilization = 0;
  double sm_active_utilization = 0;
  double allocated_gpu_hours = 0;
  double sm_active_gpu_hours = 0;
  std::map<std::string, double> waste_gpu_hours_by_cause;
  std::map<std::string, double> waste_usd_by_cause;
  struct Waster {
    std::string name;
    double allocated = 0, sm_active = 0, waste = 0;
    std::string top_cause;
  };
  std::vector<Waster> top_teams, top_workloads;
  struct Recommendation {
    std::string cause, action;
    double gpu_hours = 0, usd = 0;
  };
  std::vector<Recommendation> recommendations;  // Largest waste first.
};

Diagnosis Diagnose(const std::vector<UsageInput>& usage, const ClusterInput& cluster,
                   const Thresholds& thresholds = {});
nlohmann::json ToJson(const Diagnosis& d);
std::string ToText(const Diagnosis& d);

}  // namespace steward::diagnose
