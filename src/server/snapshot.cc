#include "server/snapshot.h"

#include <algorithm>
#include <bit>

#include "cost/waste_cause.h"
#include "health/remediation/twin_remediation.h"
#include "server/pod_tracker.h"
#include "twin/pod_names.h"

namespace steward::server {
namespace {

// A run's pending reason as text, whichever way the twin stores it (an enum or a name).
std::string ReasonText(twin::PendingReason r) { return std::string(twin::PendingReasonName(r)); }
[[maybe_unused]] std::string ReasonText(std::string_view r) { return std::string(r); }
// The run's reason detail, on twins that record one.
template <typename Run>
std::string DetailOf(const Run& run) {
  if constexpr (requires { run.reason_detail; })
    return std::string(run.reason_detail);
  else
    return {};
}

std::string_view RunStateName(twin::RunState s) {
  switch (s) {
    case twin::RunState::kPending:
      return "pending";
    case twin::RunState::kStarting:
      return "starting";
    case twin::RunState::kRunning:
      return "running";
    case twin::RunState::kDone:
      return "done";
  }
  return "?";
}

}  // namespace

char GpuStateLetter(GpuState s) {
  switch (s) {
    case GpuState::kIdle:
      return 'i';
    case GpuState::kInUse:
      return 'u';
    case GpuState::kFaulty:
      return 'f';
    case GpuState::kCordoned:
      return 'c';
  }
  return '?';
}

std::shared_ptr<const Topology> BuildTopology(const model::Cluster& cluster) {
  auto t = std::make_shared<Topology>();
  t->rack_nodes.resize(cluster.num_racks());
  for (model::NodeId n = 0; n < static_cast<model::NodeId>(cluster.nodes().size()); ++n) {
    const model::Node& node = cluster.node(n);
    t->node_by_name.emplace(node.name, n);
    if (node.rack >= static_cast<int>(t->rack_nodes.size())) t->rack_nodes.resize(node.rack + 1);
    t->rack_nodes[node.rack].push_back(n);
  }
  for (const model::Pool& p : cluster.pools()) {
    t->pools.push_back(p.name);
    t->pool_model.push_back(p.model);
  }
  return t;
}

SeriesPoint PointOf(const Overview& o, double hours) {
  SeriesPoint p;
  p.hours = hours;
  p.allocation = o.allocation_rate;
  p.busy = o.busy_utilization;
  p.sm_active = o.sm_active_utilization;
  p.in_use = o.gpus_in_use;
  p.idle = o.gpus_idle;
  p.faulty = o.gpus_faulty;
  p.cordoned = o.gpus_cordoned;
  p.running = o.workloads_running;
  p.pending = o.workloads_pending;
  return p;
}

Snapshot BuildSnapshot(const twin::Twin& tw, const SnapshotContext& ctx) {
  Snapshot snap;
  snap.version = ctx.version;
  snap.series = ctx.series;
  snap.currency = ctx.price_per_gpu_hour ? ctx.currency : "";
  const model::Cluster& cluster = tw.cluster();
  snap.topology = ctx.topology ? ctx.topology : BuildTopology(cluster);
  snap.markers = std::make_shared<const std::vector<ChartMarker>>();
  const twin::ClusterState& state = tw.state();
  const twin::Scenario& scenario = tw.scenario();
  const SimTime now = tw.now();
  const int num_teams = static_cast<int>(scenario.teams.size());
  const int num_models = static_cast<int>(cluster.gpu_models().size());

  // Nodes: GPU states from the free mask and GPU health, one pass over nodes and GPUs.
  Overview& o = snap.overview;
  snap.nodes.resize(cluster.nodes().size());
  for (model::NodeId n = 0; n < static_cast<model::NodeId>(cluster.nodes().size()); ++n) {
    const model::Node& node = cluster.node(n);
    NodeView& v = snap.nodes[n];
    v.id = n;
    v.name = node.name;
    v.pool = cluster.pools()[node.pool].name;
    v.pool_index = node.pool;
    v.first_gpu = node.first_gpu;
    v.gpu_model = cluster.gpu_models()[node.model].name;
    v.rack = node.rack;
    v.leaf = node.leaf;
    v.capacity = node.gpu_capacity;
    v.cordoned = node.cordoned;
    v.schedulable = state.schedulable(n);
    // A node whose device plugin advertises no GPUs has lost them: every GPU counts as faulty.
    const bool plugin_down = tw.gpus_missing(n);
    const uint64_t free = state.free_mask(n);
    v.gpus.resize(node.gpu_capacity);
    for (int i = 0; i < node.gpu_capacity; ++i) {
      const bool failed = cluster.gpu(node.first_gpu + i).health == model::GpuHealth::kFailed;
      const bool is_free = (free >> i) & 1;
      GpuState s = GpuState::kIdle;
      if (failed || plugin_down)
        s = GpuState::kFaulty;
      else if (!is_free)
        s = GpuState::kInUse;
      else if (node.cordoned)
        s = GpuState::kCordoned;
      v.gpus[i] = GpuStateLetter(s);
      switch (s) {
        case GpuState::kIdle:
          ++v.idle;
          break;
        case GpuState::kInUse:
          ++v.in_use;
          break;
        case GpuState::kFaulty:
          ++v.faulty;
          break;
        case GpuState::kCordoned:
          ++v.cordoned_gpus;
          break;
      }
    }
    o.gpus_in_use += v.in_use;
    o.gpus_idle += v.idle;
    o.gpus_faulty += v.faulty;
    o.gpus_cordoned += v.cordoned_gpus;
    if (v.cordoned) ++o.nodes_cordoned;
    if (v.faulty > 0) ++o.nodes_faulty;
  }

  // Workloads and queues: one pass over every run (done runs are only counted).
  snap.queues.resize(num_teams);
  snap.team_model_allocated.assign(num_teams, std::vector<int>(num_models, 0));
  for (int t = 0; t < num_teams; ++t) {
    snap.teams.push_back(scenario.teams[t].name);
    snap.queues[t].team = scenario.teams[t].name;
    snap.queues[t].quota_gpus = scenario.teams[t].quota_gpus;
  }
  for (int i = 0; i < twin::kNumPendingReasons; ++i)
    o.pending_by_reason[ReasonText(static_cast<twin::PendingReason>(i))] = 0;
  const std::string zombie(cost::WasteCauseName(cost::WasteCause::kZombie));
  const std::string over_request(cost::WasteCauseName(cost::WasteCause::kOverRequest));
  const std::string stall(cost::WasteCauseName(cost::WasteCause::kDataloaderStall));
  const std::string startup(cost::WasteCauseName(cost::WasteCause::kStartup));
  for (QueueView& q : snap.queues)
    for (const std::string* cause : {&zombie, &over_request, &stall, &startup})
      q.waste_gpus[*cause] = 0;
  // GPUs still wanted by pending work that does not fit for fragmentation, and by work that
  // waits for quota or its turn in the queue (the cluster waste causes).
  const std::string no_fit = ReasonText(twin::PendingReason::kFragmentation);
  const std::string quota = ReasonText(twin::PendingReason::kQuotaExhausted);
  const std::string queued = ReasonText(twin::PendingReason::kWaitingInQueue);
  int no_fit_gpus = 0, queued_gpus = 0;
  // Finished runs are counted by the twin (it releases them, twin/run_table.h).
  o.workloads_completed = tw.workloads_done();
  for (const twin::WorkloadRun& run : tw.runs()) {
    if (run.state == twin::RunState::kDone) continue;
    const model::Workload& w = run.spec;
    QueueView& q = snap.queues[w.team];
    WorkloadView v;
    v.id = w.id;
    v.name = w.name;
    v.team = q.team;
    v.kind = std::string(model::KindName(w.kind));
    v.tier = std::string(model::TierName(w.tier));
    v.state = std::string(RunStateName(run.state));
    v.submitted_hours = w.submit_time.ToHours();
    v.interruptions = run.interruptions;
    v.gpu_model = w.gpu_model;
    v.pods = static_cast<int>(run.pods.size());
    v.gpus_requested = w.kind == model::WorkloadKind::kInference
                           ? run.desired_replicas * w.pod_sets[0].gpus_per_pod
                           : w.TotalGpus();
    const model::UsageRates rates =
        run.idle ? model::IdleRates(w.usage) : model::ActiveRates(w.usage);
    v.pods_placed.reserve(run.pods.size());
    for (size_t i = 0; i < run.pods.size(); ++i) {
      const twin::PodAllocation& p = run.pods[i];
      PodView pv{p.node, p.gpus, {}, 0, p.running};
      if (const PodTracker::Pod* tracked = ctx.pods ? ctx.pods->Find(w.id, p.pod_id) : nullptr) {
        pv.name = tracked->name;
        pv.since_hours = tracked->since.ToHours();
      } else {
        pv.name = twin::PodName(run, static_cast<int>(i));
      }
      v.pods_placed.push_back(std::move(pv));
      const int g = std::popcount(p.gpus);
      v.gpus_allocated += g;
      NodeView& nv = snap.nodes[p.node];
      if (nv.workloads.empty() || nv.workloads.back() != w.id) nv.workloads.push_back(w.id);
      if (p.running) nv.sm_active += g * rates.sm;
      snap.team_model_allocated[w.team][cluster.node(p.node).model] += g;
    }
    q.used_gpus += v.gpus_allocated;
    q.waste_gpus[zombie] += run.rate.zombie;
    q.waste_gpus[over_request] += run.rate.over_request;
    q.waste_gpus[stall] += run.rate.data_stall;
    q.waste_gpus[startup] += run.rate.startup;
    switch (run.state) {
      case twin::RunState::kPending: {
        v.reason = ReasonText(run.reason);
        v.reason_detail = DetailOf(run);
        v.pending_seconds = (now - run.pending_since).ToSeconds();
        ++o.workloads_pending;
        ++q.pending;
        q.pending_gpus += v.gpus_requested - v.gpus_allocated;
        ++o.pending_by_reason[v.reason];
        ++q.pending_by_reason[v.reason];
        if (v.reason == no_fit) no_fit_gpus += v.gpus_requested - v.gpus_allocated;
        if (v.reason == quota || v.reason == queued)
          queued_gpus += v.gpus_requested - v.gpus_allocated;
        break;
      }
      case twin::RunState::kStarting:
        ++o.workloads_starting;
        ++q.starting;
        break;
      case twin::RunState::kRunning:
        ++o.workloads_running;
        ++q.running;
        break;
      case twin::RunState::kDone:
        break;
    }
    snap.workloads.push_back(std::move(v));
  }
  for (NodeView& nv : snap.nodes) std::sort(nv.workloads.begin(), nv.workloads.end());
  o.waste_fragmentation_gpus = std::min(o.gpus_idle, no_fit_gpus);
  o.waste_queueing_gpus = std::min(o.gpus_idle - o.waste_fragmentation_gpus, queued_gpus);

  // Usage and cost by team, from the twin's exact integrals.
  snap.scheduler = tw.Scheduler();
  for (int t = 0; t < num_teams; ++t) {
    QueueView& q = snap.queues[t];
    q.borrowed_gpus = std::max(0, q.used_gpus - q.quota_gpus);
    if (t < static_cast<int>(snap.scheduler.team_cluster_queues.size()))
      q.cluster_queue = snap.scheduler.team_cluster_queues[t];
    if (!q.cluster_queue.empty()) {
      // The ClusterQueue's quota and borrowing come from the governance engine.
      q.quota_gpus = q.borrowed_gpus = 0;
      for (const twin::ClusterQueueReport& cq : snap.scheduler.cluster_queues) {
        if (cq.name != q.cluster_queue) continue;
        for (const twin::QuotaUsage& u : cq.quotas) {
          if (u.resource != "nvidia.com/gpu") continue;
          q.quota_gpus += static_cast<int>(u.nominal);
          q.borrowed_gpus += static_cast<int>(u.borrowed);
        }
      }
    }
    for (int k = 0; k < model::kNumWorkloadKinds; ++k) {
      // Meter groups are (team, kind) pairs: team * kNumWorkloadKinds + kind (twin.cc).
      const twin::UsageTotals g = tw.meter().Group(now, t * model::kNumWorkloadKinds + k);
      q.allocated_gpu_hours += g.allocated_gpu_hours;
      q.busy_gpu_hours += g.busy_gpu_hours;
      q.sm_active_gpu_hours += g.sm_gpu_hours;
    }
    if (!ctx.price_per_gpu_hour || num_models == 0) continue;
    // Price the exact GPU-hours at the team's mix of GPU models so far (all at one price on
    // a single-model cluster).
    double hours = 0, weighted = 0;
    if (ctx.team_model_gpu_hours && t < static_cast<int>(ctx.team_model_gpu_hours->size())) {
      const auto& by_model = (*ctx.team_model_gpu_hours)[t];
      for (int m = 0; m < num_models && m < static_cast<int>(by_model.size()); ++m) {
        hours += by_model[m];
        weighted += by_model[m] * ctx.price_per_gpu_hour(cluster.gpu_models()[m].name);
      }
    }
    const double price =
        hours > 0 ? weighted / hours : ctx.price_per_gpu_hour(cluster.gpu_models()[0].name);
    q.cost = q.allocated_gpu_hours * price;
  }

  // Remediation: node states and open incidents, from the loop itself.
  if (const health::TwinRemediation* rem = ctx.remediation) {
    const health::RemediationController& c = rem->controller();
    o.remediation = true;
    for (NodeView& nv : snap.nodes) {
      const health::NodeState st = c.state(nv.name);
      if (st == health::NodeState::kHealthy) continue;
      nv.remediation = std::string(health::NodeStateName(st));
      ++o.nodes_by_remediation_state[nv.remediation];
    }
    o.tickets = static_cast<int>(c.tickets().size());
    for (const auto& [id, inc] : c.incidents().incidents()) {
      if (inc.parent != 0 || !rem->IsOpen(inc)) continue;
      IncidentView v;
      v.id = id;
      v.scope = std::string(health::IncidentScopeName(inc.scope));
      v.subject = inc.subject;
      v.category = inc.category;
      v.rack = inc.rack;
      v.leaf = inc.leaf;
      v.nodes = inc.nodes;
      for (const std::string& name : inc.nodes) {
        const model::NodeId n = cluster.FindNode(name);
        if (n != model::kNoNode) v.faulty_gpus += snap.nodes[n].faulty;
      }
      v.first_fault_hours = inc.first_fault.ToHours();
      v.last_fault_hours = inc.last_fault.ToHours();
      v.ticket = inc.ticket;
      v.suspected_cause = inc.SuspectedCause();
      snap.incidents.push_back(std::move(v));
    }
    o.incidents_open = static_cast<int>(snap.incidents.size());
    // What the incidents cover, so the panel adds up to the overview's counters.
    IncidentCoverage& cov = snap.incident_coverage;
    std::vector<bool> covered(snap.nodes.size(), false);
    for (const IncidentView& inc : snap.incidents)
      for (const std::string& name : inc.nodes) {
        auto it = snap.topology->node_by_name.find(name);
        if (it != snap.topology->node_by_name.end()) covered[it->second] = true;
      }
    const std::string quarantined(health::NodeStateName(health::NodeState::kQuarantined));
    for (const NodeView& nv : snap.nodes) {
      const bool out = nv.remediation != "healthy";
      cov.nodes_out_of_service += out;
      cov.nodes_quarantined += nv.remediation == quarantined;
      if (covered[nv.id]) {
        ++cov.nodes_in_incidents;
        cov.gpus_faulty_in_incidents += nv.faulty;
        cov.nodes_quarantined_in_incidents += nv.remediation == quarantined;
      } else if (out || nv.faulty > 0) {
        cov.uncovered.push_back({nv.name, nv.rack, nv.faulty, nv.remediation, nv.cordoned});
      }
    }
  }

  // Overview.
  const double total = cluster.total_gpus();
  o.sim_seconds = (now - kSimStart).ToSeconds();
  o.horizon_seconds = (tw.horizon() - kSimStart).ToSeconds();
  o.finished = now >= tw.horizon();
  o.speed = ctx.speed;
  o.scenario = scenario.name;
  o.admission_policy = std::string(tw.admission_policy());
  o.placement_policy = scenario.policies.placement;
  o.gpus_total = cluster.total_gpus();
  o.gpus_allocated = state.allocated_gpus();
  o.nodes_total = static_cast<int>(cluster.nodes().size());
  o.racks_total = cluster.num_racks();
  o.workloads_submitted = static_cast<int>(tw.runs().size());
  if (total > 0) {
    o.allocation_rate = state.allocated_gpus() / total;
    o.busy_utilization = tw.meter().busy_rate() / total;
    o.sm_active_utilization = tw.meter().sm_rate() / total;
    const double capacity = total * (now - kSimStart).ToHours();
    if (capacity > 0) {
      const twin::UsageTotals c = tw.meter().Cluster(now);
      o.allocation_rate_cumulative = c.allocated_gpu_hours / capacity;
      o.busy_utilization_cumulative = c.busy_gpu_hours / capacity;
      o.sm_active_utilization_cumulative = c.sm_gpu_hours / capacity;
    }
  }
  o.stranded_free_gpus = state.stranded_free_gpus();
  o.whole_free_nodes = state.whole_free_nodes();
  o.largest_free_block = state.largest_free_block();
  o.tenant_share_threshold = scenario.policies.alert_tenant_share;
  o.events = tw.events_processed();
  return snap;
}

}  // namespace steward::server
