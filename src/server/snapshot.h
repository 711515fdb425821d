// A Snapshot is an immutable, self-contained copy of what `steward serve` shows about a live
// twin at one simulated instant: the overview counters, every node's GPU states, the queues,
// the unfinished workloads, the incidents and the cost by team.
//
// The simulation thread builds one (BuildSnapshot) after each step and publishes it; HTTP
// handlers only ever read published snapshots, so a slow client never holds up the twin and
// the twin never waits for a client. Building one is O(nodes + GPUs + workloads submitted)
// with small constants (about a millisecond at 10,240 GPUs), done a few times per real second.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "health/stack_health.h"
#include "server/rendered_text.h"
#include "telemetry/gpu_record.h"
#include "twin/twin.h"

namespace steward::health {
class TwinRemediation;
}

namespace steward::server {

class PodTracker;

// GPU states of the heatmap and the overview. Every GPU is in exactly one:
// faulty (health failed, or its node's device plugin advertises no GPUs) before in-use
// (allocated to a pod), before cordoned (free on a cordoned node), before idle.
enum class GpuState : uint8_t { kIdle, kInUse, kFaulty, kCordoned };
// One letter per state in NodeView::gpus: 'i', 'u', 'f', 'c'.
char GpuStateLetter(GpuState s);

struct NodeView {
  model::NodeId id = 0;
  std::string name;
  std::string pool;
  int pool_index = 0;
  model::GpuId first_gpu = 0;  // Its GPUs are [first_gpu, first_gpu + capacity) cluster-wide.
  std::string gpu_model;
  int rack = 0;
  int leaf = 0;
  int capacity = 0;
  int in_use = 0, idle = 0, faulty = 0, cordoned_gpus = 0;
  bool cordoned = false;
  bool schedulable = false;
  std::string remediation = "healthy";       // The remediation loop's state of the node.
  double sm_active = 0;                      // SM-active GPU-equivalents on the node right now.
  std::string gpus;                          // One GpuStateLetter per GPU index.
  std::vector<model::WorkloadId> workloads;  // With pods on the node.
};

// One placed pod of a workload: where it is, which GPUs it holds, and since when.
struct PodView {
  model::NodeId node = model::kNoNode;
  uint64_t gpus = 0;       // Bit mask of GPU indices on the node.
  std::string name;        // twin/pod_names.h, as kubectl and dcgm-exporter's `pod` label show it.
  double since_hours = 0;  // Simulated hours since the start when it was bound to the node.
  bool running = false;    // Past its startup.
};

struct WorkloadView {
  model::WorkloadId id = 0;
  std::string name;
  std::string team;
  std::string kind;
  std::string tier;
  std::string state;   // pending | starting | running
  std::string reason;  // Pending reason (snake_case), "" unless pending.
  std::string reason_detail;
  int gpus_requested = 0;  // All pods at full size (services: current replicas wanted).
  int gpus_allocated = 0;
  int pods = 0;
  double submitted_hours = 0;  // Simulated hours since the start.
  double pending_seconds = 0;  // Time in its current pending spell (pending only).
  int interruptions = 0;
  int gpu_model = -1;                // The GPU model it requires (index), -1 = any.
  std::vector<PodView> pods_placed;  // In the twin's pod order.
};

struct QueueView {
  std::string team;
  // Under the kueue admitter: the team's ClusterQueue; quota_gpus is its nominal GPU quota
  // (summed over flavors) and borrowed_gpus what it borrows from its cohort, from the engine.
  std::string cluster_queue;
  int quota_gpus = 0;
  int used_gpus = 0;      // Allocated to the team's pods now.
  int borrowed_gpus = 0;  // fifo-quota: max(0, used - quota); kueue: quota borrowed (engine).
  int running = 0, starting = 0, pending = 0;
  int pending_gpus = 0;
  std::map<std::string, int> pending_by_reason;
  double allocated_gpu_hours = 0, busy_gpu_hours = 0, sm_active_gpu_hours = 0;
  double cost = 0;  // allocated GPU-hours x price (0 without a cost model).
  // GPU-equivalents the team's pods hold without computing right now, by holder waste cause
  // (cost::WasteCauseName: zombie, over_request, dataloader_stall, startup), from the twin's
  // ground-truth rates. Every holder cause has an entry (0 when none).
  std::map<std::string, double> waste_gpus;
};

// An open incident of the remediation loop's IncidentGrouper (health/incidents): faults of one
// family on one node, or on several nodes of a rack or leaf (a shared component). Empty
// without a remediation loop.
struct IncidentView {
  int64_t id = 0;
  std::string scope;     // node | rack | leaf
  std::string subject;   // The node, "rack-3" or "leaf-1".
  std::string category;  // Fault family, e.g. "nvlink" or "xid79".
  int rack = -1;         // -1 for a leaf incident.
  int leaf = -1;
  std::vector<std::string> nodes;
  int faulty_gpus = 0;  // Faulty GPUs on its nodes now.
  double first_fault_hours = 0, last_fault_hours = 0;
  int64_t ticket = 0;  // 0 = none yet.
  std::string suspected_cause;
};

// Nodes that are out of service or have faulty GPUs but belong to no open incident (e.g. a
// quarantined node whose incident's ticket was resolved, or a node whose device plugin lost its
// GPUs without an XID). With them, the incident panel adds up to the overview's counters:
// gpus_faulty = faulty GPUs on nodes of open incidents + faulty GPUs listed here.
struct UncoveredNode {
  std::string name;
  int rack = 0;
  int faulty_gpus = 0;
  std::string remediation;  // The loop's state ("healthy" when only GPUs are faulty).
  bool cordoned = false;
};

struct IncidentCoverage {
  int gpus_faulty_in_incidents = 0;  // On the nodes of open incidents, each node once.
  int nodes_in_incidents = 0;        // Distinct nodes of open incidents.
  int nodes_out_of_service = 0;      // Nodes whose remediation state is not healthy.
  int nodes_quarantined = 0;
  int nodes_quarantined_in_incidents = 0;
  std::vector<UncoveredNode> uncovered;
};

// A change worth a vertical line on the time-series charts: faults (nodes that gained faulty
// GPUs), cordons and uncordons, and quota changes, found by comparing consecutive snapshots
// (server/chart_markers.h), so every source counts: random faults, the remediation loop,
// controllers and the API's controls.
struct ChartMarker {
  double hours = 0;
  std::string kind;                   // fault | cordon | uncordon | quota
  std::vector<std::string> subjects;  // Nodes, or "team 640 -> 100" for quotas; at most 8.
  int count = 0;                      // Subjects in all (nodes, or GPUs for a fault).
};

// The cluster's fixed layout, shared by every snapshot of one twin (built once).
struct Topology {
  std::unordered_map<std::string, model::NodeId> node_by_name;
  std::vector<std::vector<model::NodeId>> rack_nodes;  // By rack id, nodes in id order.
  std::vector<std::string> pools;                      // By pool index.
  std::vector<int> pool_model;                         // GPU model index of each pool.
};
std::shared_ptr<const Topology> BuildTopology(const model::Cluster& cluster);

struct SeriesPoint {
  double hours = 0;
  double allocation = 0, busy = 0, sm_active = 0;  // Shares of all GPUs, instantaneous.
  int in_use = 0, idle = 0, faulty = 0, cordoned = 0;
  int running = 0, pending = 0;
};

struct Overview {
  double sim_seconds = 0;
  double horizon_seconds = 0;
  bool finished = false;  // Reached the horizon; the twin stands still from then on.
  double speed = 0;       // Simulated seconds per real second.
  std::string scenario;
  std::string admission_policy, placement_policy;
  int gpus_total = 0, gpus_in_use = 0, gpus_idle = 0, gpus_faulty = 0, gpus_cordoned = 0;
  int gpus_allocated = 0;  // In use plus faulty GPUs still held by pods.
  int nodes_total = 0, nodes_cordoned = 0, nodes_faulty = 0, racks_total = 0;
  int workloads_submitted = 0, workloads_running = 0, workloads_starting = 0, workloads_pending = 0,
      workloads_completed = 0;
  // Instantaneous shares of all GPUs: allocated, GPU_UTIL-busy and SM-active equivalents.
  double allocation_rate = 0, busy_utilization = 0, sm_active_utilization = 0;
  // The same over the whole run so far (GPU-hours / capacity GPU-hours).
  double allocation_rate_cumulative = 0, busy_utilization_cumulative = 0,
         sm_active_utilization_cumulative = 0;
  int stranded_free_gpus = 0, whole_free_nodes = 0, largest_free_block = 0;
  std::map<std::string, int> pending_by_reason;
  // Free GPUs nobody holds while work waits (the cluster waste causes of docs/diagnose.md, now):
  // fragmentation = idle GPUs up to what no-fit (fragmentation) pending work still needs;
  // queueing = the idle GPUs left, up to what quota-blocked or queued work still needs.
  int waste_fragmentation_gpus = 0, waste_queueing_gpus = 0;
  // The tenant share alert threshold of the scenario (policies.alert_tenant_share).
  double tenant_share_threshold = 0;
  int64_t events = 0;
  bool remediation = false;  // A remediation loop runs on the twin.
  // Nodes by remediation state (healthy omitted); incidents open; tickets filed so far.
  std::map<std::string, int> nodes_by_remediation_state;
  int incidents_open = 0;
  int tickets = 0;
};

struct Snapshot {
  int64_t version = 0;  // Increases with every published snapshot.
  Overview overview;
  std::vector<NodeView> nodes;          // By node id.
  std::vector<WorkloadView> workloads;  // Unfinished, by id.
  std::vector<QueueView> queues;        // By team index.
  std::vector<IncidentView> incidents;
  IncidentCoverage incident_coverage;  // With the remediation loop only.
  twin::SchedulerReport scheduler;     // ClusterQueues (kueue admitter), Kueue-metric style.
  std::string currency;                // "" when no cost model is configured.
  std::shared_ptr<const std::vector<SeriesPoint>> series;
  std::shared_ptr<const std::vector<ChartMarker>> markers;  // Oldest first; never null.
  std::shared_ptr<const Topology> topology;                 // Never null.
  std::vector<std::string> teams;  // For validating controls without touching the twin.
  std::vector<std::vector<int>> team_model_allocated;  // [team][GPU model] allocated GPUs.
  // The twin's dcgm-exporter records (one per GPU) at dcgm_sim_hours; shared between
  // snapshots until the next exporter refresh. Null when the exporter is off.
  std::shared_ptr<const std::vector<telemetry::GpuRecord>> dcgm_records;
  double dcgm_sim_hours = 0;
  // GPU stack findings (health/stack_health.h) over the twin's nodes as `kubectl get nodes`
  // shows them, refreshed at the exporter's cadence like dcgm_records. Null before the first.
  std::shared_ptr<const std::vector<health::StackFinding>> stack_findings;
  // The /api/overview body and the /metrics/dcgm page, each rendered by the first request that
  // needs it and shared by every other (dcgm's between snapshots, until the next exporter
  // refresh). Set by LiveTwin's publish; null = render per request (the overview) or stream
  // per scrape (the dcgm page of more than LiveTwinOptions::dcgm_shared_page_max_gpus GPUs).
  std::shared_ptr<const RenderedText> overview_json;
  std::shared_ptr<const RenderedText> dcgm_text;
  // The /api/racks bodies (the heatmap's), [0] without node lists (nodes=false: one tile per
  // rack, what the dashboard polls above 40,000 GPUs), [1] with them; rendered like
  // overview_json. Null = render per request.
  std::shared_ptr<const RenderedText> racks_json[2];
  // The rollouts the engine runs in the twin (GET /api/rollouts): a JSON array of their
  // statuses in the shape of `steward rollout status --json` (rollout/status.h), from
  // LiveTwinOptions::rollouts. Null without any.
  std::shared_ptr<const nlohmann::json> rollouts;
};

// Inputs of BuildSnapshot that the twin does not know.
struct SnapshotContext {
  int64_t version = 0;
  double speed = 0;
  // Price of one allocated GPU-hour by GPU model name; empty = no cost model.
  std::function<double(const std::string& gpu_model)> price_per_gpu_hour;
  std::string currency;
  // Per team, allocated GPU-hours by GPU model index so far (the split used to price teams on
  // a mixed cluster); empty = price everything at the cluster's first GPU model.
  const std::vector<std::vector<double>>* team_model_gpu_hours = nullptr;
  std::shared_ptr<const std::vector<SeriesPoint>> series;
  // The remediation loop attached to the twin (node states, incidents); null = none.
  const health::TwinRemediation* remediation = nullptr;
  // The cluster's layout (BuildTopology); null = built here.
  std::shared_ptr<const Topology> topology;
  // Names and bind times of placed pods; null = names from twin/pod_names.h, since = unknown
  // (0 h), as for a one-off snapshot.
  const PodTracker* pods = nullptr;
};

// Reads the twin (on its thread) into a snapshot.
Snapshot BuildSnapshot(const twin::Twin& twin, const SnapshotContext& context);

// The series point of a snapshot's overview.
SeriesPoint PointOf(const Overview& o, double hours);

}  // namespace steward::server
