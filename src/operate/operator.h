// Operator: `steward operate` — Steward's controllers run against a live cluster through the
// one control interface (control/cluster_control.h), behind the safety gate
// (control/gated_control.h). Each pass:
//
//   1. reads the cluster from the informer cache (live/cluster_cache.h) and, when given, the
//      DCGM series from Prometheus (DCGM_FI_DEV_XID_ERRORS: a GPU's last XID);
//   2. turns what changed into the remediation loop's signals: a new non-zero XID on a GPU, an
//      NPD condition (GPUMissing) appearing or clearing, a diagnostic result or a repair
//      marked done through the node annotations of live_actuator.h;
//   3. runs the GPU stack checks and the tenant-over-threshold alert over the same view
//      (Warning Events, once per new finding / crossing), and idle reclaim
//      (reclaim/control_reclaimer.h) over SM-active per pod from Prometheus
//      (avg by (namespace, pod) of DCGM_FI_PROF_SM_ACTIVE);
//   4. with a tidal configuration (operate/tidal_config.h), every tidal period: reads each
//      service's request rate from Prometheus (operate/request_rate_reader.h) and steps the
//      TidalController the twin runs (tidal/tidal_controller.h) through the gate; without a
//      usable reading it holds (no step: never lends on missing data) and says so once;
//   5. ticks the RemediationController (the same one the twin runs) until it has nothing due,
//      so one pass takes a faulty node as far as it can go now (cordon, then the drain's
//      first evictions).
//
//   Operator::Options o;  o.gate.mode = control::GateOptions::Mode::kPlan;
//   auto op = Operator::Create(client, cache, prometheus, audit_log, o);
//   (*op)->RunPass();                         // --once; otherwise every o.interval
//
// Without --apply (Mode::kPlan) nothing is written and every action is a plan line and an
// audit row; the remediation state then lives in memory only (a dry run must not leave a
// real run's state file believing nodes were cordoned).
// Cost per pass: one cache copy of nodes, two Prometheus queries (plus one or two per tidal
// service each tidal period), O(nodes + GPU pods).
// Thread-safety: one thread runs passes.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "control/gated_control.h"
#include "control/tenant_share_alert.h"
#include "health/remediation/remediation_controller.h"
#include "health/stack_health.h"
#include "live/cluster_cache.h"
#include "live/kube_client.h"
#include "live/live_control.h"
#include "operate/live_actuator.h"
#include "operate/request_rate_reader.h"
#include "operate/tidal_config.h"
#include "reclaim/control_reclaimer.h"
#include "store/audit_log.h"
#include "telemetry/prometheus_client.h"
#include "tidal/tidal_controller.h"

namespace steward::operate {

struct OperatorOptions {
  control::GateOptions gate;
  bool server_dry_run = false;
  // The remediation loop's durable state (SQLite); "" = in memory. Ignored in plan mode.
  std::string state_db;
  health::RemediationOptions remediation;
  // Node labels naming the pool (disruption budget) and the rack/leaf (incident grouping);
  // the first present wins. A node without a rack or leaf label is its own.
  std::vector<std::string> pool_labels = {"steward.io/pool", "cloud.google.com/gke-nodepool",
                                          "eks.amazonaws.com/nodegroup", "karpenter.sh/nodepool",
                                          "node.kubernetes.io/instance-type"};
  std::vector<std::string> rack_labels = {"steward.io/rack", "topology.kubernetes.io/rack"};
  std::vector<std::string> leaf_labels = {"steward.io/leaf", "topology.kubernetes.io/zone"};
  // NPD conditions that are faults while True.
  std::set<std::string> fault_conditions = {"GPUMissing"};
  // A ConfigMap ("namespace/name") whose annotation steward.io/paused=true stops every write.
  std::string pause_configmap = "steward-system/steward";
  // GPU stack health (health/stack_health.h) each pass: a Warning Event per new finding.
  bool stack_health = true;
  health::StackHealthOptions stack;
  // The tenant-over-threshold alert (control/tenant_share_alert.h): a tenant (the pod label
  // below, else its namespace) holding more than this share of the cluster's GPUs gets a
  // Warning Event on its namespace when it crosses. 0 = off.
  double alert_tenant_share = 0.5;
  std::string tenant_label = "steward.io/team";
  // Idle reclaim (needs Prometheus): notice, then eviction of idle workloads of the spec's
  // kinds (default notebooks: 30 min to the notice, 60 to the reclaim, SM-active < 5 %).
  bool idle_reclaim = true;
  reclaim::ControlReclaimerOptions reclaim;
  // Tidal lending (needs Prometheus for the request rates); unset or disabled = off.
  std::optional<LiveTidalConfig> tidal;
};

class Operator {
 public:
  // `client`, `cache`, `prometheus` (may be null: no DCGM signals) and `audit` (may be null)
  // must outlive the operator. The cache must have synced.
  static Result<std::unique_ptr<Operator>> Create(live::KubeClient* client,
                                                  const live::ClusterCache* cache,
                                                  const telemetry::PrometheusClient* prometheus,
                                                  store::AuditLog* audit, OperatorOptions options);

  // One pass (see above). Errors of single signals or actions are counted, not fatal; an
  // unreachable Prometheus is (the caller decides whether to go on).
  Status RunPass();

  struct Stats {
    int64_t passes = 0, xids = 0, conditions = 0, diagnostics = 0, repairs = 0;
    int64_t stack_findings = 0, tenant_alerts = 0;
    int64_t reclaim_notices = 0, reclaims = 0;
    int64_t tidal_steps = 0, tidal_holds = 0;  // Holds: tidal periods without a usable reading.
    int64_t tidal_failsafe_reclaims = 0;       // Holds past reclaim_after_hold that took all back.
    bool tidal = false;                        // Tidal lending configured.
    int64_t tidal_lent_gpus = -1;              // As of the last step (-1: no step yet).
    int64_t errors = 0;
  };
  const Stats& stats() const { return stats_; }
  // The GPU stack findings of the latest check (empty before the first, or with stack_health
  // off: see stack_checked()).
  const std::vector<health::StackFinding>& current_stack_findings() const {
    return current_stack_findings_;
  }
  bool stack_checked() const { return stack_checked_; }
  const health::RemediationController& remediation() const { return *remediation_; }
  const control::GatedControl& gate() const { return *gate_; }
  // The tidal controller (null without a tidal configuration).
  const tidal::TidalController* tidal() const { return tidal_.get(); }
  // The first error a pass met (signals or actions), for the CLI.
  const Status& first_error() const { return first_error_; }

 private:
  Operator() = default;
  Status PollXids(SimTime now);
  void PollNodes(SimTime now);
  void CheckStack();
  void CheckTenants(SimTime now);
  // SM-active per pod from Prometheus, then a reclaim pass.
  Status ReclaimIdle();
  // Tidal lending, when its period is due: prime the forecasts once, read the request rates,
  // step the controller, or hold.
  Status StepTidal(SimTime now);
  Status PrimeTidal(SimTime now);
  // Reads the pause switch (one GET); RunPass does it once per pass.
  bool ReadPauseSwitch();
  void Note(const Status& s);

  live::KubeClient* client_ = nullptr;
  const live::ClusterCache* cache_ = nullptr;
  const telemetry::PrometheusClient* prometheus_ = nullptr;
  OperatorOptions options_;
  std::unique_ptr<live::LiveClusterControl> live_;
  std::unique_ptr<control::GatedControl> gate_;
  std::unique_ptr<LiveActuator> actuator_;
  std::unique_ptr<health::RemediationController> remediation_;
  std::optional<reclaim::ControlReclaimer> reclaimer_;
  std::unique_ptr<tidal::TidalController> tidal_;
  std::optional<RequestRateReader> rates_;
  SimTime tidal_next_ = SimTime::Never();
  bool tidal_primed_ = false;
  bool tidal_holding_ = false;
  SimTime tidal_hold_since_ = SimTime::Never();  // The first hold of the current outage.
  SimTime tidal_failsafe_next_ = SimTime::Never();
  std::map<std::pair<std::string, std::string>, int> last_xid_;     // (node, gpu) -> XID seen.
  std::map<std::string, std::set<std::string>> conditions_;         // node -> fault conditions.
  std::set<std::pair<std::string, std::string>> seen_annotations_;  // (node, key=value).
  std::set<std::pair<std::string, std::string>> stack_findings_;    // (node, check) raised.
  std::vector<health::StackFinding> current_stack_findings_;
  bool stack_checked_ = false;
  control::TenantShareAlert tenant_alert_{0.5};
  std::map<std::string, size_t> tenant_index_;
  bool paused_ = false;  // The pause switch as read at the start of this pass.
  Stats stats_;
  Status first_error_;
};

}  // namespace steward::operate
