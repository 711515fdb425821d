// `steward twin snapshot`: a cluster's state as a twin scenario directory, to ask what-if
// questions (a quota change, a policy, more nodes) of the cluster as it stands.
//
//   Result<ClusterObjects> objects = ReadCluster(client.get(), {});      // snapshot/read_cluster.h
//   Result<Snapshot> s = BuildSnapshot(*objects, options);
//   Status st = WriteSnapshot(*s, "/tmp/snap");   // scenario.yaml, workloads.csv, kueue.yaml
//   // steward twin validate /tmp/snap/scenario.yaml && steward twin run /tmp/snap/scenario.yaml
//
// The directory (docs/scenario.md, "Snapshots"):
//   scenario.yaml  the GPU models and pools (snapshot/node_pools.h), one team per namespace
//                  with GPU work, admission `kueue` with kueue.yaml when the cluster runs Kueue
//                  (else fifo-quota with every team's quota the whole cluster: nothing limits
//                  them there), and workloads.csv as a Steward trace;
//   workloads.csv  the workloads (snapshot/pod_workloads.h): the running ones submitted at 0 s
//                  in the order they started, the waiting ones at 1 s in creation order, each
//                  running for `duration_hours` (the cluster does not say when a pod will end);
//   kueue.yaml     the cluster's ResourceFlavors, Cohorts, ClusterQueues, LocalQueues,
//                  WorkloadPriorityClasses (and Volcano Queues/PodGroups), specs only, as
//                  govern's Kueue export writes them, plus the Namespaces their selectors read;
//                  `twin run --policy` or an edited copy with `twin compare --vs-policy` tries
//                  another policy on the same state.
// Building never fails on odd cluster data: what was guessed or left out is in Snapshot::notes
// (also written at the top of scenario.yaml). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kube/core_v1.h"
#include "model/status.h"
#include "snapshot/node_pools.h"
#include "snapshot/pod_workloads.h"

namespace steward::snapshot {

// What was read from the cluster.
struct ClusterObjects {
  std::string source;   // The API server (for the scenario's header).
  int64_t read_at = 0;  // Unix microseconds.
  std::vector<kube::Node> nodes;
  std::vector<kube::Pod> pods;
  std::vector<kube::Namespace> namespaces;
  // Kueue/Volcano objects by plural ("clusterqueues", ...), with apiVersion and kind set.
  std::map<std::string, std::vector<nlohmann::json>> custom;
};

struct SnapshotOptions {
  std::string name = "snapshot";
  uint64_t seed = 1;
  double horizon_days = 1;
  // How long each workload runs from the snapshot on; 0 = the whole horizon.
  double duration_hours = 0;
  NodePoolOptions pools{};
};

struct Snapshot {
  SnapshotOptions options;
  std::string source;
  int64_t read_at = 0;
  NodePools pools;
  SnapshotWorkloads workloads;
  std::map<std::string, int> team_quota_gpus;  // By team.
  std::string kueue_yaml;                      // "" = the cluster runs no Kueue/Volcano.
  int policy_objects = 0;
  std::vector<std::string> notes;  // pools.notes + workloads.notes + the snapshot's own.
};

// Fails only when nothing usable is left (no GPU node) or a Kueue object cannot be imported
// (the message names it).
Result<Snapshot> BuildSnapshot(const ClusterObjects& objects, const SnapshotOptions& options);

// The files' text.
std::string ScenarioYaml(const Snapshot& snapshot);
std::string WorkloadsCsv(const Snapshot& snapshot);

// Writes scenario.yaml, workloads.csv and (with Kueue) kueue.yaml into `dir` (created).
Status WriteSnapshot(const Snapshot& snapshot, const std::filesystem::path& dir);

inline constexpr char kScenarioFile[] = "scenario.yaml";
inline constexpr char kWorkloadsFile[] = "workloads.csv";
inline constexpr char kPolicyFile[] = "kueue.yaml";

}  // namespace steward::snapshot
