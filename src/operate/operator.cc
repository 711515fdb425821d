#include "operate/operator.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "health/node_list.h"
#include "model/xid_catalog.h"

namespace steward::operate {
namespace {

std::string FirstLabel(const control::NodeInfo& n, const std::vector<std::string>& keys) {
  for (const std::string& k : keys)
    if (auto it = n.labels.find(k); it != n.labels.end() && !it->second.empty()) return it->second;
  return "";
}

// Dense ids for label values; "" gets an id of its own (a node alone in its rack or leaf).
int IdOf(std::map<std::string, int>& ids, const std::string& value, int* next) {
  if (value.empty()) return (*next)++;
  auto [it, added] = ids.emplace(value, *next);
  if (added) ++*next;
  return it->second;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

Result<std::unique_ptr<Operator>> Operator::Create(live::KubeClient* client,
                                                   const live::ClusterCache* cache,
                                                   const telemetry::PrometheusClient* prometheus,
                                                   store::AuditLog* audit,
                                                   OperatorOptions options) {
  std::unique_ptr<Operator> op(new Operator());
  op->client_ = client;
  op->cache_ = cache;
  op->prometheus_ = prometheus;
  op->options_ = std::move(options);
  live::LiveControlOptions lo;
  lo.server_dry_run = op->options_.server_dry_run;
  op->live_ = std::make_unique<live::LiveClusterControl>(client, cache, lo);
  control::GateOptions gate = op->options_.gate;
  Operator* self = op.get();
  if (!gate.paused) gate.paused = [self] { return self->paused_; };
  if (!gate.now_micros) gate.now_micros = [self] { return self->live_->Now().micros(); };
  op->gate_ = std::make_unique<control::GatedControl>(*op->live_, audit, gate);
  op->actuator_ = std::make_unique<LiveActuator>(*op->gate_);

  health::NodeTopology topology;
  std::map<std::string, int> pools, racks, leaves;
  int next_pool = 0, next_rack = 0, next_leaf = 0;
  for (const control::NodeInfo& n : op->live_->Nodes()) {
    health::NodePlacement p;
    p.pool = IdOf(pools, FirstLabel(n, op->options_.pool_labels), &next_pool);
    p.rack = IdOf(racks, FirstLabel(n, op->options_.rack_labels), &next_rack);
    p.leaf = IdOf(leaves, FirstLabel(n, op->options_.leaf_labels), &next_leaf);
    STEWARD_RETURN_IF_ERROR(topology.Add(n.name, p));
  }
  if (topology.num_nodes() == 0)
    return Status::FailedPrecondition("the cluster has no nodes (is the cache synced?)");
  const bool plan = gate.mode == control::GateOptions::Mode::kPlan;
  const std::string db = plan || op->options_.state_db.empty() ? ":memory:" : op->options_.state_db;
  STEWARD_ASSIGN_OR_RETURN(op->remediation_, health::RemediationController::Open(
                                                 db, std::move(topology), op->actuator_.get(),
                                                 op->options_.remediation));
  op->tenant_alert_ = control::TenantShareAlert(op->options_.alert_tenant_share);
  if (op->options_.idle_reclaim && prometheus != nullptr) {
    STEWARD_ASSIGN_OR_RETURN(reclaim::ControlReclaimer r,
                             reclaim::ControlReclaimer::Create(op->options_.reclaim, *op->gate_));
    op->reclaimer_.emplace(std::move(r));
  }
  if (op->options_.tidal && op->options_.tidal->enabled) {
    if (prometheus == nullptr)
      return Status::FailedPrecondition(
          fmt::format("{}: tidal lending needs --prometheus (the services' request rates)",
                      op->options_.tidal->source));
    op->tidal_ = std::make_unique<tidal::TidalController>(*op->gate_, op->options_.tidal->options);
    op->rates_.emplace(*prometheus, op->options_.tidal->services);
    op->tidal_primed_ = !op->options_.tidal->prime_from_history;
    op->stats_.tidal = true;
  }
  op->actuator_->set_reason_source([self](std::string_view node) -> std::string {
    const health::NodeRecord* r = self->remediation_->Find(node);
    return r ? r->reason : "";
  });
  return op;
}

void Operator::Note(const Status& s) {
  if (s.ok()) return;
  ++stats_.errors;
  if (first_error_.ok()) first_error_ = s;
}

Status Operator::PrimeTidal(SimTime now) {
  const tidal::TidalOptions& o = tidal_->options();
  const SimDuration span = Hours(24) * o.forecast.days;
  // Prometheus answers at most 11,000 points per series: coarser steps over long histories.
  const SimDuration step = std::max(o.period, SimDuration::Micros(span.micros() / 10000 + 1));
  STEWARD_ASSIGN_OR_RETURN(
      std::vector<RequestRateReader::Past> past,
      rates_->History(SimTime::FromMicros(now.micros() - span.micros()),
                      SimTime::FromMicros(now.micros() - step.micros()), step));
  for (const RequestRateReader::Past& p : past) tidal_->ObserveHistory(p.load, p.at);
  tidal_primed_ = true;  // Once: a later hold leaves a gap, never a second, older history.
  fmt::print(stderr, "steward operate: tidal: primed the forecasts with {} past readings\n",
             past.size());
  return Status::Ok();
}

Status Operator::StepTidal(SimTime now) {
  if (!tidal_ || (!tidal_next_.is_never() && now < tidal_next_)) return Status::Ok();
  const std::string& queue = tidal_->options().lend_from;
  Status read = tidal_primed_ ? Status::Ok() : PrimeTidal(now);
  Result<std::vector<control::ServiceLoad>> loads =
      read.ok() ? rates_->Read() : Result<std::vector<control::ServiceLoad>>(read);
  const SimDuration failsafe = options_.tidal->reclaim_after_hold;
  if (!loads.ok()) {
    // Hold: no step, so nothing is lent (nor a forecast fed) on a number that is not there.
    ++stats_.tidal_holds;
    fmt::print(stderr, "steward operate: tidal holds: {}\n", loads.status().message());
    if (!tidal_holding_) {
      tidal_holding_ = true;
      tidal_hold_since_ = now;
      tidal_failsafe_next_ = now + failsafe;
      const std::string then =
          failsafe.micros() > 0
              ? fmt::format("; after {:g} minutes without it every lent GPU is taken back",
                            failsafe.ToSeconds() / 60)
              : std::string();
      Note(gate_->EmitEvent({"ClusterQueue", "", queue}, "Warning", "TidalHold",
                            fmt::format("tidal lending holds (nothing lent or taken back) until "
                                        "the demand reads again{}: {}",
                                        then, loads.status().message())));
    }
    if (failsafe.micros() > 0 && now >= tidal_failsafe_next_) {
      // The fail-safe: blind for too long, serving gets its whole split back (and borrowers
      // beyond their quota are evicted over the following periods, as after any reclaim).
      tidal_failsafe_next_ = now + tidal_->options().period;
      ++stats_.tidal_failsafe_reclaims;
      const std::string why = fmt::format("no demand reading for {:g} minutes",
                                          (now - tidal_hold_since_).ToSeconds() / 60);
      fmt::print(stderr, "steward operate: tidal fail-safe: {}; taking every lent GPU back\n", why);
      Note(tidal_->ReclaimAll(why));
      stats_.tidal_lent_gpus = tidal_->stats().lent_gpus;
    }
    return loads.status();
  }
  if (tidal_holding_) {
    tidal_holding_ = false;
    fmt::print(stderr, "steward operate: tidal: demand reads again; stepping\n");
  }
  tidal_next_ = now + tidal_->options().period;
  ++stats_.tidal_steps;
  Status s = tidal_->Step(*loads);
  stats_.tidal_lent_gpus = tidal_->stats().lent_gpus;
  return s;
}

bool Operator::ReadPauseSwitch() {
  const std::string& cm = options_.pause_configmap;
  const size_t slash = cm.find('/');
  if (cm.empty() || slash == std::string::npos) return false;
  live::ApiResult r = client_->Get(fmt::format("/api/v1/namespaces/{}/configmaps/{}",
                                               cm.substr(0, slash), cm.substr(slash + 1)));
  if (!r.ok()) return r.error().code != 404;  // Unknown state: do not write.
  const nlohmann::json& a = r.value()["metadata"].value("annotations", nlohmann::json::object());
  return a.value("steward.io/paused", "") == "true";
}

Status Operator::PollXids(SimTime now) {
  if (!prometheus_) return Status::Ok();
  STEWARD_ASSIGN_OR_RETURN(telemetry::PromQueryResult r,
                           prometheus_->Query("DCGM_FI_DEV_XID_ERRORS"));
  for (const telemetry::PromSample& s : r.vector) {
    auto host = s.metric.find("Hostname");
    if (host == s.metric.end()) host = s.metric.find("kubernetes_node");
    if (host == s.metric.end() || !std::isfinite(s.point.value)) continue;
    auto gpu_it = s.metric.find("gpu");
    const std::string gpu = gpu_it == s.metric.end() ? "" : gpu_it->second;
    const int xid = static_cast<int>(s.point.value);
    int& last = last_xid_[{host->second, gpu}];
    if (xid == last) continue;
    last = xid;
    if (xid == 0) continue;  // Cleared (a repair resets the GPU).
    ++stats_.xids;
    const model::XidEntry* e = model::XidCatalog::Builtin().Find(xid);
    const int gpu_index = gpu.empty() ? -1 : static_cast<int>(ParseInt(gpu).value_or(-1));
    Status st = remediation_->OnXid(host->second,
                                    health::MakeXid(xid, e ? e->action : health::XidAction::kNone,
                                                    std::string(model::XidFamily(xid)), gpu_index),
                                    now);
    if (st.code() != Status::Code::kNotFound) Note(st);  // A GPU of a node we do not govern.
  }
  return Status::Ok();
}

Status Operator::ReclaimIdle() {
  if (!reclaimer_) return Status::Ok();
  // dcgm-exporter labels a GPU with the pod holding it (namespace, pod); the mean over the pod's
  // GPUs is what the policy compares. Without profiling metrics, GPU utilization is the closest
  // reading (percent).
  double scale = 1;
  STEWARD_ASSIGN_OR_RETURN(telemetry::PromQueryResult r,
                           prometheus_->Query("avg by (namespace, pod) (DCGM_FI_PROF_SM_ACTIVE)"));
  if (r.vector.empty()) {
    STEWARD_ASSIGN_OR_RETURN(r,
                             prometheus_->Query("avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL)"));
    scale = 0.01;
  }
  std::map<std::string, double> sm_active;
  for (const telemetry::PromSample& s : r.vector) {
    auto ns = s.metric.find("namespace"), pod = s.metric.find("pod");
    if (ns == s.metric.end() || pod == s.metric.end() || pod->second.empty() ||
        !std::isfinite(s.point.value))
      continue;
    sm_active[ns->second + "/" + pod->second] = s.point.value * scale;
  }
  Status st = reclaimer_->Pass(sm_active);
  stats_.reclaim_notices = reclaimer_->stats().notices;
  stats_.reclaims = reclaimer_->stats().reclaims;
  return st;
}

void Operator::PollNodes(SimTime now) {
  for (const control::NodeInfo& n : live_->Nodes()) {
    std::set<std::string>& active = conditions_[n.name];
    for (const control::NodeCondition& c : n.conditions) {
      if (!options_.fault_conditions.count(c.type)) continue;
      const bool was = active.count(c.type) > 0;
      if (c.status == was) continue;
      if (c.status)
        active.insert(c.type);
      else
        active.erase(c.type);
      ++stats_.conditions;
      health::NodeConditionSignal signal;
      signal.type = c.type;
      signal.status = c.status;
      signal.reason = c.reason;
      Note(remediation_->OnCondition(n.name, signal, now));
    }
    auto annotation = [&](const char* key) -> std::optional<std::string> {
      auto it = n.annotations.find(key);
      if (it == n.annotations.end()) return std::nullopt;
      // Each value is acted on once (the cache shows it on every pass).
      if (!seen_annotations_.emplace(n.name, std::string(key) + "=" + it->second).second)
        return std::nullopt;
      return it->second;
    };
    if (std::optional<std::string> result = annotation(kDiagnosticResultAnnotation)) {
      ++stats_.diagnostics;
      const bool pass = *result == "pass";
      Note(
          remediation_->OnDiagnosticResult(n.name, pass, "reported by annotation " + *result, now));
    }
    if (std::optional<std::string> done = annotation(kRepairDoneAnnotation)) {
      if (std::optional<int64_t> id = ParseInt(*done)) {
        ++stats_.repairs;
        Note(remediation_->OnTicketResolved(*id, now));
      }
    }
  }
}

// "device-plugin-down" -> "GPUStackDevicePluginDown" (an Event reason is CamelCase).
static std::string StackReason(std::string_view check) {
  std::string out = "GPUStack";
  bool upper = true;
  for (char c : check) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

void Operator::CheckStack() {
  if (!options_.stack_health) return;
  nlohmann::json list = {
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", nlohmann::json::array()}};
  for (const kube::Node& n : cache_->Nodes()) list["items"].push_back(kube::ToJson(n));
  Result<std::vector<health::NodeInfo>> nodes =
      health::ParseNodeList(list.dump(), "the cluster", {.allow_empty = true});
  if (!nodes.ok()) return Note(nodes.status());
  std::vector<health::StackFinding> findings;
  for (const health::StackCheck& check : health::StackChecks()) {
    // Node state is the remediation loop's (health/stack_health.h, StackCheck::node_state).
    if (!check.node_state) check.run(*nodes, options_.stack, findings);
  }
  std::set<std::pair<std::string, std::string>> now_found;
  for (const health::StackFinding& f : findings) {
    if (f.severity == "info") continue;  // Progress (a MIG change under way), not a problem.
    now_found.emplace(f.node, f.check);
    if (stack_findings_.count({f.node, f.check})) continue;  // Raised already.
    ++stats_.stack_findings;
    Note(gate_->EmitEvent({"Node", "", f.node}, "Warning", StackReason(f.check),
                          fmt::format("{} ({}); fix: {}", f.message, f.severity, f.hint)));
  }
  stack_findings_ = std::move(now_found);  // A finding that clears may be raised again.
  current_stack_findings_ = std::move(findings);
  stack_checked_ = true;
}

void Operator::CheckTenants(SimTime now) {
  if (options_.alert_tenant_share <= 0) return;
  double total = 0;
  for (const kube::Node& n : cache_->Nodes()) total += static_cast<double>(n.GpuCapacity());
  if (total <= 0) return;
  std::map<std::string, std::pair<double, std::string>> held;  // tenant -> (GPUs, namespace).
  for (const kube::Pod& p : cache_->Pods()) {
    if (p.node_name.empty() || p.Terminal()) continue;
    auto label = p.metadata.labels.find(options_.tenant_label);
    const std::string tenant =
        label != p.metadata.labels.end() ? label->second : p.metadata.namespace_name;
    auto& [gpus, ns] = held[tenant];
    gpus += static_cast<double>(p.GpuRequest());
    if (ns.empty()) ns = p.metadata.namespace_name;
  }
  // Every known tenant is observed each pass (0 when it holds nothing), so a crossing is new.
  for (const auto& [tenant, h] : held) tenant_index_.emplace(tenant, tenant_index_.size());
  const double hours = static_cast<double>(now.micros()) / 3.6e9;
  for (const auto& [tenant, index] : tenant_index_) {
    auto it = held.find(tenant);
    const double share = it == held.end() ? 0 : it->second.first / total;
    if (!tenant_alert_.Observe(index, tenant, share, hours, 0)) continue;
    ++stats_.tenant_alerts;
    Note(gate_->EmitEvent(
        {"Namespace", "", it->second.second}, "Warning", "TenantOverThreshold",
        fmt::format("tenant {} holds {:.0f} of the cluster's {:.0f} GPUs ({:.0f}%, threshold "
                    "{:.0f}%)",
                    tenant, it->second.first, total, 100 * share,
                    100 * options_.alert_tenant_share)));
  }
}

Status Operator::RunPass() {
  ++stats_.passes;
  paused_ = ReadPauseSwitch();  // Once per pass, not once per write.
  const SimTime now = live_->Now();
  // Before the XIDs: an unreachable Prometheus ends the pass there, and tidal must hold first.
  Note(StepTidal(now));
  STEWARD_RETURN_IF_ERROR(PollXids(now));
  PollNodes(now);
  CheckStack();
  CheckTenants(now);
  Note(ReclaimIdle());
  // Take every node as far as it can go now: the cordon, then the drain's due evictions.
  for (int i = 0; i < 16; ++i) {
    Note(remediation_->Tick(now));
    if (remediation_->NextDeadline() > now) break;
  }
  return Status::Ok();
}

}  // namespace steward::operate
