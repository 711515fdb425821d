// A twin scenario: the cluster's shape, the teams, the workload generators and traces, the
// policies, the horizon and the seed. Loaded from YAML (see examples/default.yaml, documented
// field by field in docs/scenario.md); every error names the file, line and field.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.h"
#include "model/status.h"
#include "model/workload.h"
#include "twin/distribution.h"
#include "twin/interference.h"
#include "twin/serving_spec.h"

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
  // Allocatable extended resources per node (`extended_resources: {rdma/ib: 8}`).
  std::map<std::string, int64_t> extended_resources;
  std::string driver_version = "550.90.07";
  std::string toolkit_version = "1.16.1";
  std::string device_plugin_version = "0.16.1";
  std::map<std::string, std::string> labels;
  std::vector<model::Taint> taints;
  // How pods that share a GPU of this pool share it (docs/tidal.md "Sharing a GPU"): the
  // interference serving replicas and their neighbours meet. The nodes carry it as GPU feature
  // discovery's nvidia.com/gpu.sharing-strategy label (unless none).
  GpuSharingMode gpu_sharing = GpuSharingMode::kNone;
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

// The label the twin puts on every generated workload: its generator's name, the job template
// or application it comes from (Kubernetes' recommended app.kubernetes.io/name).
inline constexpr std::string_view kGeneratorLabel = "app.kubernetes.io/name";

// One pod set of a generator's workloads (`pod_sets:`, Kueue's spec.podSets): `count` pods of
// `gpus_per_pod` whole GPUs each; `min_count` (1..count, 0 = none) lets a Kueue policy admit
// the set with fewer pods (Kueue's minCount, partial admission).
struct PodSetSpec {
  std::string name;
  int count = 1;
  int gpus_per_pod = 1;
  int min_count = 0;
};

// The diagnose's right-sizing applied to a generator's workloads (docs/scenario.md). Off by
// default. `to_used_gpus`: a pod asks for the GPUs it drives, ceil(gpus x used_gpu_fraction),
// and drives as many on them (used_gpu_fraction = driven / asked). `mig_profile`: a pod left
// with one fully used GPU takes this MIG instance when its SM-active read on the instance
// (x 7/k) is at most 1, so the same SM work fits; its usage is read on the instance, as DCGM
// reports it.
struct RightSizeSpec {
  bool to_used_gpus = false;
  std::string mig_profile;  // "" = none.
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
  // Several pod sets (e.g. a launcher and workers of different sizes): every workload has them
  // all, placed as one gang. Then `pods` is their total and `gpus_per_pod` the sizes weighted by
  // count, so what sizes pools and checks nodes reads them as it reads the short form.
  std::vector<PodSetSpec> pod_sets;
  Distribution duration_hours = Distribution::Constant(1);
  double checkpoint_interval_minutes = 0;  // 0 = never checkpoints.
  double restore_minutes = 0;
  // Elastic training: its pod set with a min_count may shrink while running (model::Workload).
  bool elastic = false;
  std::string gpu_model;  // "" = any.
  model::TopologyPreference topology = model::TopologyPreference::kNone;
  // GPU sharing (one-GPU pods only): a fraction of a GPU, or one MIG instance.
  Distribution gpu_milli = Distribution::Constant(1000);
  std::string mig_profile;  // "" = none; else a MIG profile name (place/mig.h).
  // CPU (milli-cores) and memory (MiB) per pod, checked against the node's allocatable by
  // placement; 0 = not given (placement counts GPUs only, as before).
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  std::map<std::string, int64_t> extended_resources;  // Per pod, every pod set's.
  std::string pod_group;              // Volcano PodGroup of the policy governing admission.
  double pod_creation_seconds = 0;    // Pods created this far apart (0 = all at once).
  double startup_jitter_seconds = 0;  // Each start takes up to this much longer (uniform).
  UsageSpec usage;
  // Right-sizing applied to each workload after everything is drawn, so the random stream —
  // and what the job does with the GPUs it uses — is the same with and without it.
  RightSizeSpec right_size;
  // Labels of every workload it makes; the twin adds kGeneratorLabel = the generator's name
  // unless they set it.
  std::map<std::string, std::string> labels;
  // Inference services: replica range over the day.
  int min_replicas = 1;
  int max_replicas = 1;
  double peak_hour = 14;
  // Inference with `traffic:`: request rate, per-replica capacity, latency, SLO and autoscaler
  // (twin/serving_spec.h); replaces the diurnal replica curve above.
  ServingSpec serving;
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

// A placement pool (the guide's pool rules): a set of nodes with its own placement policy and a
// rule saying which pods may land there. Pods try the pools that accept them in listed order.
struct PlacementPoolSpec {
  std::string name;
  std::string hardware_pool;  // Take nodes of this cluster.pools[] entry only ("" = any).
  int nodes = -1;             // How many (in node order); -1 = every node still unassigned.
  std::string placement;      // Policy name; "" = policies.placement.
  // Accepts a pod set when every rule holds (kinds empty = any kind; shared = whether
  // fractional-GPU and MIG pods may land; min_pods = 2 keeps single pods out).
  std::vector<model::WorkloadKind> kinds;
  int min_gpus_per_pod = 1;
  int max_gpus_per_pod = 1 << 30;
  bool shared = true;
  int min_pods = 1;
  int line = 0, column = 0;  // Where it was written, for errors found when nodes are known.
};

// Defragmenting preemption: when a workload of whole-node pods waits for lack of whole nodes
// although enough GPUs are free, evict the cheapest small preemptible pods to free them.
struct DefragSpec {
  bool enabled = false;
  int max_victims_per_cycle = 4;  // Workloads evicted in one scheduling instant.
  int max_victims_per_hour = 20;  // ... in any sliding hour.
  std::vector<model::Tier> victim_tiers = {model::Tier::kDev};
  bool checkpointed_training = true;  // Training that checkpoints may be a victim too.
};

struct PolicySpec {
  std::string admission = "fifo-quota";
  std::string placement = "first-fit";   // Default placement policy (a place/ registry name).
  std::vector<PlacementPoolSpec> pools;  // Empty: one pool of every node.
  DefragSpec defrag;
  double startup_seconds = 90;  // Image pull + container start, GPUs held but idle.
  // Kueue / Volcano YAML files (relative to the scenario) that govern admission; setting them
  // selects the "kueue" admitter. `steward twin run --policy FILE...` overrides them.
  std::vector<std::filesystem::path> governance;
  std::string victim_ordering = "checkpoint-aware";  // See govern/victim_ordering.h.
  // The guide's "single tenant over threshold" alert: a team holding more than this share of
  // the cluster's GPUs at a sample raises an alert in the report.
  double alert_tenant_share = 0.5;
  // How the kueue admitter charges an autoscaled service (one with traffic:): false ("peak"),
  // as one Workload at max_replicas, held while it lives; true ("per-replica"), each replica its
  // own Workload of one pod, admitted as it is wanted and released on scale-down (Kueue's
  // Deployment integration), so the serving queue's usage follows its replicas. fifo-quota
  // always charges per replica.
  bool serving_per_replica = false;
};

// Llama 3 405B pretraining (arXiv 2407.21783 §3.3.4, ../shared/docs/util-cost-facts.md): 419
// unexpected interruptions in 54 days on 16,384 H100 = 1.97e-5 per GPU-hour (0.47 per 1,000
// GPUs per day). The fault defaults below split it by cause (docs/calibration.md).
inline constexpr double kLlama3InterruptionsPerGpuHour = 419.0 / (54 * 24 * 16384.0);

// One XID's fault rate, per GPU-hour of every GPU (busy or idle).
struct XidRateSpec {
  int xid = 0;
  double per_gpu_hour = 0;
};

// Shared-component events (rack power, top-of-rack or NVLink switch): every node of one rack
// reports `xid` on all its GPUs at the same instant.
struct RackEventSpec {
  double per_rack_day = 0;
  int xid = 74;
};

// How the rollout engine (docs/rollout.md) runs a gated driver rollout in the twin: the batch's
// first `canary_nodes` nodes, then the rest, each soaked and then gated on the XID rate against
// the nodes the rollout never touched, the schedulable share of the batch's GPUs and the job
// failure rate; a failed gate (or a node failing validation) rolls every touched node back to
// the pool's driver. Success and failure conditions are complementary, so these gates never
// pause. Or `plan`: a rollout plan file (docs/rollout.md "Plan") supplies batches, budgets and
// gates for the entry's batch; its gates may be inconclusive, and a pause waits for a human:
// `human` (a scripted answer after a delay), `steward serve`'s POST /api/rollouts/NAME/answer,
// or the end of the run.
struct GatedRolloutSpec {
  bool enabled = false;
  int canary_nodes = 1;
  double soak_hours = 1;
  int max_parallel = 1;                // Nodes upgrading at once (0 = no limit).
  double max_xid_rate_delta = 0.5;     // XIDs per node-hour above the control group.
  double min_schedulable_gpus = 0.75;  // Allocatable over capacity on the batch's nodes.
  double max_job_failure_rate = 0.5;
  std::filesystem::path plan;  // Relative to the scenario file; empty = the fields above.
  int plan_line = 0;
  // A human who answers every pause `after_hours` after it begins.
  struct HumanAnswer {
    bool resume = true;  // false: abort (roll back).
    double after_hours = 0.5;
  };
  std::optional<HumanAnswer> human;
};

// A driver version rolled out to a batch of one pool's nodes. A bad version raises the XID
// rates of the nodes running it (xid_rate_multiplier) or stops their device plugin from
// advertising GPUs. Scripted (the default): the whole batch switches at at_hours and a repaired
// node is re-imaged to the pool's version. Gated: from at_hours the rollout engine moves the
// batch node by node through the version label (GatedRolloutSpec); repairs keep the version.
struct DriverRolloutSpec {
  std::string pool;
  double at_hours = 0;
  int first_node = 0;  // Index in the pool of the batch's first node.
  int nodes = -1;      // Batch size; -1 = the rest of the pool.
  std::string driver_version;
  double xid_rate_multiplier = 1;
  bool advertises_gpus = true;
  GatedRolloutSpec gated;
  int line = 0;  // Where it was written, for errors found when the cluster is built.
};

// What a GPU-stack version (a driver, toolkit, device plugin or dcgm-exporter version, or a MIG
// layout) does to the nodes that run it, once a rollout sets it (docs/rollout.md, "The twin"):
// extra XIDs, GPUs the device plugin no longer advertises (validation fails), a MIG layout the
// MIG manager leaves pending or failed. Versions not listed behave like the pool's.
struct VersionSpec {
  std::string version;
  double extra_xids_per_gpu_hour = 0;  // On top of the base XID rates.
  int xid = 13;                        // The XID those faults log.
  bool advertises_gpus = true;
  std::string mig_state = "success";  // For a MIG layout: success, pending or failed.
  int line = 0;
};

// A fault at a fixed time: an XID on one GPU of a node (gpu -1 = every GPU), or a rack event.
struct ScheduledFaultSpec {
  double at_hours = 0;
  std::string node;  // Either a node ...
  int gpu = 0;
  int rack = -1;  // ... or a rack id.
  int xid = 0;
  int line = 0;
};

// The fault model of the simulated world (docs/scenario.md "faults", calibration in
// docs/calibration.md). Defaults: the Llama 3 rate, split 58.7% GPU faults by XID, 8.4% rack
// (network switch) events, 32.9% other (host, network, software) interruptions.
struct FaultSpec {
  bool enabled = true;
  // Host, network and software interruptions of running training jobs (no GPU fault), per
  // GPU-hour of running training: the job restarts from its last checkpoint.
  double other_interruptions_per_gpu_hour =
      kLlama3InterruptionsPerGpuHour * (1 - 0.587 - 35.0 / 419);
  std::vector<XidRateSpec> xids = DefaultXidRates();
  // 35 of 419 (network switch/cable) as events on 4-node, 32-GPU racks.
  RackEventSpec rack_events{kLlama3InterruptionsPerGpuHour * 35.0 / 419 * 24 * 32, 74};
  std::vector<DriverRolloutSpec> driver_rollouts;
  std::vector<VersionSpec> versions;
  std::vector<ScheduledFaultSpec> scheduled;

  // The GPU-related 58.7% split over the Llama 3 causes by XID (docs/calibration.md).
  static std::vector<XidRateSpec> DefaultXidRates();
};

// The remediation loop the CLI attaches to the twin (health/twin_remediation.h) and the
// simulated repair shop behind its tickets. Repair times are modelling assumptions.
struct RemediationSpec {
  bool enabled = true;
  double max_out_fraction = 0.10;  // Disruption budget per pool.
  // Hours from a ticket being filed to the repair being done, by repair kind.
  double reset_gpu_hours = 1;
  double reboot_hours = 2;
  double investigate_hours = 24;
  double rma_hours = 72;
  // A quarantined node waits this long for a human to look at it and release it.
  double human_release_hours = 72;
  double diagnostic_minutes = 15;  // DCGM diag level 3 on an 8-GPU node: 10-20 min.
  // A repair that did not fix the node (its validation diagnostic then fails).
  double repair_failure_probability = 0.05;
};

// Idle reclaim (reclaim/idle_reclaimer.h, docs/reclaim.md): a workload of one of `kinds` whose
// GPUs stay idle (SM-active per held GPU below idle_sm_active_below) gets a notice after
// notify_after_minutes and is stopped after reclaim_after_minutes of the same idle streak,
// unless one of exempt_labels matches its labels ("*" matches any value). When several are due
// at once, `kinds` order decides who goes first. A dry run records notices and would-be
// reclaims and stops nothing. Defaults from ../shared/docs/util-cost-facts.md §4: SM-active
// < 5 % for 60 min (its synthesis; zero-to-jupyterhub's cull.timeout 3600 s), a notice at
// 30 min (the AWS Kubeflow culling example's 30 min), notebooks (what every culler there
// targets). Off in the naive default scenario.
struct ReclaimSpec {
  bool enabled = false;
  bool dry_run = true;
  double notify_after_minutes = 30;
  double reclaim_after_minutes = 60;
  double idle_sm_active_below = 0.05;
  std::vector<model::WorkloadKind> kinds = {model::WorkloadKind::kNotebook};
  std::map<std::string, std::string> exempt_labels = {{"steward.io/reclaim-exempt", "true"}};
};

// Tenancy objects audited with the twin (docs/tenancy.md, "In the twin"): what `kubectl get
// -A -o yaml|json` prints for the tenants' namespaces, RBAC, NetworkPolicies, quotas, pods and
// device plugin configs. The twin adds its own nodes (pool labels and taints) unless the files
// hold Nodes, and its own Kueue policy (the governance files, or the fifo-quota teams as
// ClusterQueues/LocalQueues) unless the files hold ClusterQueues. The findings are in the
// report ("tenancy") and on the dashboard (/api/tenancy).
struct TenancySpec {
  std::vector<std::filesystem::path> files;  // Relative to the scenario; files or directories.
  std::string tenant_label = "steward.io/tenant";
  int line = 0;  // Where the section was written (0 = absent).
  bool enabled() const { return line > 0; }
};

// Tidal lending (tidal/tidal_controller.h, docs/tidal.md): the serving queue's trough goes to
// a training queue and comes back before the ramp. Off unless the section is present.
struct TidalSpec {
  bool enabled = false;
  std::string lend_from;          // The serving queue; "" = the queue of the traffic services.
  std::string lend_to;            // The borrowing queue (required).
  std::string lend_to_namespace;  // Its pods' namespace; "" = its team's, else lend_to.
  double reserve_gpus = -1;       // -1 = "hpa-step": each service's autoscaler step.
  int forecast_days = 3;
  double forecast_bucket_minutes = 15;
  double save_seconds = 120;    // Lead time = save + restart.
  double restart_seconds = -1;  // -1 = policies.startup_seconds.
  double period_minutes = 1;    // Control period.
  // Shrunk elastic borrowers grow back when the borrower's quota has room again (each grow
  // costs a regroup); false: they keep their size until they end.
  bool grow_back = false;
  // How the loan is made: false ("nominal"), by moving nominal GPU quota from lend_from to
  // lend_to; true ("lending-limit"), by setting lend_from's GPU lendingLimit in a cohort that
  // lend_to borrows from (Kueue's own pattern; kueue admission, serving per replica).
  bool lend_by_lending_limit = false;
  int line = 0;  // Where the section was written (0 = absent).
};

struct Scenario {
  std::string name = "scenario";
  std::string source;  // File the scenario came from (for messages and reports).
  uint64_t seed = 1;
  double horizon_days = 7;
  double sample_minutes = 60;  // Time-series resolution of the report.
  std::vector<GpuModelSpec> gpu_models;
  std::vector<PoolSpec> pools;
  InterferenceSpec interference;  // cluster.interference: the sharing model's coefficients.
  // Alternatively (or in addition) the nodes of an Alibaba v2023 node list CSV
  // (sn,cpu_milli,memory_mib,gpu,model): one pool per GPU model, racks of 4, leaves of 32.
  std::filesystem::path alibaba_nodes;
  std::vector<TeamSpec> teams;
  std::vector<GeneratorSpec> generators;
  std::vector<TraceSpec> traces;
  PolicySpec policies;
  FaultSpec faults;
  RemediationSpec remediation;
  ReclaimSpec reclaim;
  TenancySpec tenancy;
  TidalSpec tidal;

  // True when some generator has a traffic model or tidal lending is configured: the report
  // then carries the serving and tidal sections (docs/tidal.md).
  bool UsesServing() const;
  int FindTeam(std::string_view name) const;
};

// Parses a scenario. `source` names the text in error messages (a path or "<default>").
Result<Scenario> ParseScenario(std::string_view yaml_text, std::string_view source);
Result<Scenario> LoadScenario(const std::filesystem::path& path);
// The built-in 10,240-GPU scenario (examples/default.yaml, embedded at build time).
Scenario DefaultScenario();
std::string_view DefaultScenarioYaml();

}  // namespace steward::twin
