// The twin's governance as Kueue (kueue.x-k8s.io/v1beta1) and Volcano
// (scheduling.volcano.sh/v1beta1) objects: ResourceFlavors, Cohorts, ClusterQueues (spec from
// the imported policy with the live quotas, status from the scheduler), LocalQueues,
// WorkloadPriorityClasses, one Workload per unfinished workload; Volcano Queues and PodGroups
// when the policy came from Volcano. Under the fifo-quota admitter each team's queue is served
// as a ClusterQueue and a LocalQueue of the team's name with one flavor, "default-flavor".
//
//   KueueObjects k = BuildKueueObjects(twin, twin.Scheduler(), counts, created);
//   nlohmann::json wl = WorkloadObject(twin, run, times);
//
// Cost: O(queues x flavors) for the queues, O(pod sets) per Workload. Thread: the twin's.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "twin/twin.h"

namespace steward::kubefront {

inline constexpr const char* kFifoFlavor = twin::kFifoQuotaFlavor;

// Pending and admitted workloads per LocalQueue ("namespace/name").
struct QueueCounts {
  std::map<std::string, std::pair<int, int>> by_local_queue;  // (pending, admitted)
};

struct KueueObjects {
  std::vector<nlohmann::json> resource_flavors, cohorts, cluster_queues, local_queues,
      priority_classes, volcano_queues;
  // Kueue's manager ConfigMap (govern::kKueueConfigMapName) holding the policy's
  // Configuration, as Kueue's installation does; empty without one.
  std::vector<nlohmann::json> config_maps;
};
KueueObjects BuildKueueObjects(const twin::Twin& twin, const twin::SchedulerReport& scheduler,
                               const QueueCounts& counts, int64_t created_micros);

// Times of a workload's Kueue history that the twin does not keep (the mirror's).
struct WorkloadTimes {
  int64_t created = 0;
  int64_t admitted = 0;   // Last admission (QuotaReserved/Admitted True), 0 = never.
  int64_t pending = 0;    // Became pending (QuotaReserved False).
  int64_t preempted = 0;  // Last preemption (Evicted), 0 = never.
  std::string preempted_by;
};
// The Workload's name: Kueue's "<owner kind>-<name>-<hash>".
std::string WorkloadName(const model::Workload& w);
std::string LocalQueueOf(const twin::Twin& twin, const model::Workload& w);
nlohmann::json WorkloadObject(const twin::Twin& twin, const twin::WorkloadRun& run,
                              const WorkloadTimes& times);
// A Volcano PodGroup for a workload that names one.
nlohmann::json PodGroupObject(const twin::Twin& twin, const twin::WorkloadRun& run,
                              int64_t created_micros);

}  // namespace steward::kubefront
