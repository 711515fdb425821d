// The guide's case-1 playbook ("finance says utilization is 35%") as a report: allocation vs
// real (SM-active) utilization, waste in GPU-hours and money by cause, top wasters by team,
// workload and GPU, and concrete recommendations. The Classifier (classifier.h) fills it from
// frames; every source goes through it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "diagnose/right_sizing.h"
#include "diagnose/thresholds.h"

namespace steward::diagnose {

struct Diagnosis {
  struct Source {
    std::string kind;   // "twin", "prometheus", "bundle".
    std::string where;  // Scenario, URL or directory.
    int64_t start_ms = 0;
    int64_t end_ms = 0;  // Time of the last frame (each frame stands for one step after it).
    double step_seconds = 0;
    int frames = 0;
    int gpus = 0;  // Distinct GPUs seen.
  };
  Source source;
  Thresholds thresholds;
  std::string currency = "USD";

  // GPU-hours. Capacity counts every GPU present in a frame; allocated those a pod holds.
  double capacity_gpu_hours = 0;
  double allocated_gpu_hours = 0;
  double busy_gpu_hours = 0;       // GPU_UTIL / 100 x hours on allocated GPUs.
  double sm_active_gpu_hours = 0;  // SM_ACTIVE x hours on allocated GPUs.
  double allocation_rate = 0;      // Allocated / capacity.
  double busy_utilization = 0;     // Busy / capacity.
  double sm_active_utilization = 0;

  // Keys are cost::WasteCauseName()s; holder causes plus fragmentation and queueing.
  std::map<std::string, double> waste_gpu_hours_by_cause;
  std::map<std::string, double> waste_usd_by_cause;
  // Allocated, not SM-active, and not waste: the idle SM share of efficient compute.
  double unattributed_gpu_hours = 0;
  // Activity (SM-active or memory held) on GPUs no pod label maps: pods outside Kubernetes, or
  // dcgm-exporter's pod mapping off. Such GPUs count as free.
  double unmapped_busy_gpu_hours = 0;

  struct Waster {
    std::string name;
    std::string team;  // Workloads only.
    double allocated = 0, sm_active = 0, waste = 0, usd = 0;
    std::string top_cause;
    std::map<std::string, double> by_cause;
    // Workloads only: what owns their pods (Deployment, Job, StatefulSet, PodGroup, ...; a
    // ReplicaSet's Deployment) and the most pods it had bound at one instant, so one row stands
    // for all its replicas.
    std::string owner_kind;
    int replicas = 0;
  };
  std::vector<Waster> top_teams, top_workloads;
  // Queueing waste (free GPUs while pods waited for admission) charged to the teams whose pods
  // waited, in proportion to their waiting GPUs in each frame: their queue's quota is what
  // held the work back. Largest first.
  struct QueueingTeam {
    std::string team;
    double gpu_hours = 0, usd = 0;
    double waiting_gpu_hours = 0;  // GPUs of its pods waiting for admission x hours.
    int peak_waiting_gpus = 0;
    // The quota holding it, when the source knows it (a twin scenario): its queue and nominal
    // GPU quota; -1 = unknown.
    std::string cluster_queue;
    int64_t quota_gpus = -1;
  };
  std::vector<QueueingTeam> queueing_by_team;
  struct GpuWaster {
    std::string hostname, uuid, model_name;
    double waste = 0, usd = 0;
    std::string top_cause;
  };
  std::vector<GpuWaster> top_gpus;
  struct Recommendation {
    std::string cause, action;
    double gpu_hours = 0, usd = 0;
  };
  std::vector<Recommendation> recommendations;  // Largest waste first.
  std::vector<RightSizing> right_sizing;        // Largest GPU-hours freed first.
  std::vector<std::string> warnings;
  // Parts of the diagnosis the source could not compute because a series it reads matched
  // nothing in the window (e.g. no kube-state-metrics), and what the figures above assume
  // instead. Listed in the output rather than silently omitted.
  struct NotComputed {
    std::string part;     // "pending pods: queueing and fragmentation waste".
    std::string series;   // The selector that matched nothing.
    std::string instead;  // What the diagnosis did without it.
  };
  std::vector<NotComputed> not_computed;
};

// The remedy the guide gives for a cause (四、怎么系统性提升), with the thresholds in effect.
std::string ActionFor(const std::string& cause, const Thresholds& t);

nlohmann::json ToJson(const Diagnosis& d);
std::string ToText(const Diagnosis& d);

}  // namespace steward::diagnose
