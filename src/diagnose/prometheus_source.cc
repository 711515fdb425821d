#include "diagnose/prometheus_source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <map>

#include "cost/window.h"
#include "diagnose/kube_state_metrics.h"
#include "telemetry/prometheus_client.h"

namespace steward::diagnose {
namespace {

using telemetry::PromLabels;

std::string LabelOr(const PromLabels& l, std::string_view a, std::string_view b = {}) {
  if (auto it = l.find(std::string(a)); it != l.end()) return it->second;
  if (!b.empty())
    if (auto it = l.find(std::string(b)); it != l.end()) return it->second;
  return "";
}

telemetry::GpuIdentity IdentityOf(const PromLabels& l) {
  telemetry::GpuIdentity id;
  id.hostname = LabelOr(l, "Hostname", "hostname");
  id.uuid = LabelOr(l, "UUID", "uuid");
  const std::string gpu = LabelOr(l, "gpu");
  int index = -1;
  if (!gpu.empty()) std::from_chars(gpu.data(), gpu.data() + gpu.size(), index);
  id.gpu = index;
  id.device = LabelOr(l, "device");
  id.model_name = LabelOr(l, "modelName");
  id.pci_bus_id = LabelOr(l, "pci_bus_id");
  id.driver_version = LabelOr(l, "DCGM_FI_DRIVER_VERSION");
  id.pod = LabelOr(l, "pod");
  id.namespace_name = LabelOr(l, "namespace");
  id.container = LabelOr(l, "container");
  return id;
}

struct PodAcc {
  PodObject pod;
  bool phase_known = false;
  bool unschedulable = false;
  bool scheduled_false = false;
};

// The objects and records of one step, keyed so that their order is stable across steps.
struct StepData {
  std::map<std::string, telemetry::GpuRecord> gpus;
  std::map<std::string, PodAcc> pods;  // "namespace/pod".
  std::map<std::string, health::NodeInfo> nodes;
};

// The selectors of the KSM series read with a filter, as queried and as named in messages.
std::string RequestsSeries() {
  return fmt::format("{}{{resource=\"{}\"}}", kKsmPodRequests, kKsmGpuResource);
}
std::string AllocatableSeries() {
  return fmt::format("{}{{resource=\"{}\"}}", kKsmNodeAllocatable, kKsmGpuResource);
}
std::string OwnerSeries() {
  return fmt::format("{}{{owner_is_controller=\"true\"}}", kKsmPodOwner);
}
std::string ReadySeries() {
  return fmt::format("{}{{condition=\"Ready\",status=\"true\"}}", kKsmNodeCondition);
}

// Turns the series that matched nothing into an error (no GPU activity at all: nothing to
// diagnose) or into the parts of the diagnosis that could not be computed.
Status CheckSeries(const PrometheusSourceOptions& o, const std::string& url,
                   const std::map<std::string, bool>& matched,
                   std::vector<Diagnosis::NotComputed>* not_computed) {
  auto empty = [&](const std::string& series) {
    auto it = matched.find(series);
    return it == matched.end() || !it->second;
  };
  auto field = [](telemetry::DcgmField f) { return std::string(telemetry::InfoOf(f).name); };
  const std::string sm = field(telemetry::DcgmField::kSmActive);
  const std::string gr = field(telemetry::DcgmField::kGrEngineActive);
  const std::string util = field(telemetry::DcgmField::kGpuUtil);
  const std::string tensor = field(telemetry::DcgmField::kPipeTensorActive);
  const std::string fb = field(telemetry::DcgmField::kFbUsed);
  const std::string window =
      fmt::format("from {} to {} (step {}s, lookback {}s)", cost::FormatRfc3339(o.start_ms / 1000),
                  cost::FormatRfc3339(o.end_ms / 1000), o.step_ms / 1000.0, o.lookback_ms / 1000.0);
  if (empty(sm) && empty(gr) && empty(util)) {
    std::vector<std::string> others;
    for (const auto& [series, any] : matched)
      if (!any && series != sm && series != gr && series != util) others.push_back(series);
    return Status::NotFound(fmt::format(
        "prometheus {}: no series matched {}, {} or {} {}: GPU activity cannot be computed, so "
        "there is nothing to diagnose (is dcgm-exporter scraped by this Prometheus, and do "
        "--start/--end cover its data?){}",
        url, sm, gr, util, window,
        others.empty() ? "" : fmt::format("; also empty: {}", fmt::join(others, ", "))));
  }
  if (not_computed == nullptr) return Status::Ok();
  auto add = [&](std::string part, std::string series, std::string instead) {
    not_computed->push_back({std::move(part), std::move(series), std::move(instead)});
  };
  if (empty(sm)) {
    add("SM-active utilization", sm,
        fmt::format("activity is read from {} (dcgm-exporter's profiling counters are off or "
                    "the GPUs lack them)",
                    empty(gr) ? util : gr));
  }
  if (empty(util)) add("busy utilization", util, "busy is taken to equal activity");
  if (empty(tensor)) add("tensor-core activity", tensor, "low_efficiency uses SM activity alone");
  if (empty(fb)) {
    add("memory held (zombie vs never used)", fb, "a GPU counts as used only while it computes");
  }
  const std::string requests = RequestsSeries();
  if (empty(requests)) {
    add("pods from kube-state-metrics: pending pods, queueing and fragmentation waste, owners",
        requests,
        "pods are known only from dcgm-exporter's pod labels (team = namespace), and no "
        "queueing or fragmentation waste is charged");
  } else {
    if (empty(kKsmPodLabels)) {
      add("teams and workloads from pod labels", kKsmPodLabels, "each pod's team is its namespace");
    }
    if (empty(kKsmPodPhase)) {
      add("pod phases", kKsmPodPhase, "a pod bound to a node counts as Running");
    }
    if (empty(kKsmPodInfo) && empty(OwnerSeries())) {
      add("pod owners (right-sizing classes)", kKsmPodInfo + std::string(", ") + kKsmPodOwner,
          "pods are grouped by their workload label only");
    }
    if (empty(kKsmPodNodeSelectors)) {
      add("GPU product a pending pod needs", kKsmPodNodeSelectors,
          "pending pods count as fitting any product (the family is opt-in in "
          "kube-state-metrics)");
    }
  }
  const std::string allocatable = AllocatableSeries();
  if (empty(allocatable)) {
    add("node objects: cordoned and NotReady nodes", allocatable,
        "free GPUs are the ones dcgm-exporter shows without a pod, cordoned or not");
  } else {
    if (empty(kKsmNodeUnschedulable)) {
      add("cordoned nodes", kKsmNodeUnschedulable, "every node counts as schedulable");
    }
    const std::string ready = ReadySeries();
    if (empty(ready)) add("NotReady nodes", ready, "every node counts as Ready");
    if (empty(kKsmNodeLabels)) {
      add("node GPU products from labels", kKsmNodeLabels,
          "a node's product is that of its first GPU seen");
    }
  }
  return Status::Ok();
}

}  // namespace

Status RunPrometheusSource(const PrometheusSourceOptions& o, FrameBuilder& builder,
                           std::vector<Diagnosis::NotComputed>* not_computed) {
  if (o.step_ms <= 0) return Status::InvalidArgument("--step must be > 0");
  if (o.lookback_ms <= 0 || o.lookback_ms >= o.step_ms) {
    return Status::InvalidArgument(fmt::format(
        "--lookback ({} ms) must be > 0 and below the step ({} ms): a longer one would see a "
        "series that ended one step earlier",
        o.lookback_ms, o.step_ms));
  }
  if (o.end_ms < o.start_ms) return Status::InvalidArgument("--end is before --start");
  if (o.chunk_steps <= 0 || o.chunk_steps > 11000)
    return Status::InvalidArgument("chunk steps must be in [1, 11000] (Prometheus' limit)");
  STEWARD_ASSIGN_OR_RETURN(telemetry::PrometheusClient client,
                           telemetry::PrometheusClient::Create(o.url, o.client));

  const std::string requests_series = RequestsSeries(), allocatable_series = AllocatableSeries(),
                    owner_series = OwnerSeries(), ready_series = ReadySeries();
  const std::string w = fmt::format("[{}ms]", o.lookback_ms);
  auto last = [&](std::string_view series) {
    return fmt::format("last_over_time({}{})", series, w);
  };
  const std::string gpu_requests = last(requests_series) + " > 0";
  auto of_gpu_pods = [&](const std::string& q) {
    return fmt::format("({}) and on(namespace, pod) ({})", q, gpu_requests);
  };
  const std::string team_label = KsmLabel("label", o.attribution.team_label);
  const std::string workload_label = KsmLabel("label", o.attribution.workload_label);
  const std::string class_label = KsmLabel("label", o.attribution.class_label);
  const std::string product_selector = KsmLabel("nodeselector", kGpuProductLabel);
  const std::string product_label = KsmLabel("label", kGpuProductLabel);
  // Series (as a selector, for messages) -> whether it matched anything in the window.
  std::map<std::string, bool> matched;

  const int64_t steps = (o.end_ms - o.start_ms) / o.step_ms + 1;
  for (int64_t k0 = 0; k0 < steps; k0 += o.chunk_steps) {
    const int64_t n = std::min<int64_t>(o.chunk_steps, steps - k0);
    const int64_t a_ms = o.start_ms + k0 * o.step_ms;
    std::vector<StepData> data(n);
    // Runs `promql` over the chunk and hands every point to `each` with its step; records
    // whether `series` (empty: a filtered query whose emptiness means nothing) matched.
    auto range =
        [&](const std::string& series, const std::string& promql,
            const std::function<void(StepData&, const PromLabels&, double)>& each) -> Status {
      STEWARD_ASSIGN_OR_RETURN(
          telemetry::PromQueryResult r,
          client.QueryRange(promql, static_cast<double>(a_ms) / 1000,
                            static_cast<double>(a_ms + (n - 1) * o.step_ms) / 1000,
                            static_cast<double>(o.step_ms) / 1000));
      if (r.type != telemetry::PromResultType::kMatrix)
        return Status::Corrupt(fmt::format("{}: answer is not a matrix", promql));
      if (!series.empty()) matched[series] |= !r.matrix.empty();
      for (const telemetry::PromSeries& s : r.matrix) {
        for (const telemetry::PromPoint& p : s.points) {
          const int64_t i = std::llround((p.time * 1000 - static_cast<double>(a_ms)) / o.step_ms);
          if (i < 0 || i >= n || std::isnan(p.value)) continue;
          each(data[i], s.metric, p.value);
        }
      }
      return Status::Ok();
    };
    auto find_pod = [](StepData& d, const PromLabels& l) -> PodAcc* {
      auto it = d.pods.find(LabelOr(l, "namespace") + "/" + LabelOr(l, "pod"));
      return it == d.pods.end() ? nullptr : &it->second;
    };

    for (telemetry::DcgmField f : kDiagnoseFields) {
      STEWARD_RETURN_IF_ERROR(
          range(std::string(telemetry::InfoOf(f).name), last(telemetry::InfoOf(f).name),
                [f](StepData& d, const PromLabels& l, double v) {
                  telemetry::GpuIdentity id = IdentityOf(l);
                  std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}/{}", id.hostname, id.uuid,
                                                id.gpu, id.namespace_name, id.pod);
                  telemetry::GpuRecord& rec = d.gpus[key];
                  if (rec.id.hostname.empty() && rec.id.uuid.empty()) rec.id = std::move(id);
                  rec.values.Set(f, v);
                }));
    }

    STEWARD_RETURN_IF_ERROR(
        range(requests_series, gpu_requests, [](StepData& d, const PromLabels& l, double v) {
          PodAcc& p = d.pods[LabelOr(l, "namespace") + "/" + LabelOr(l, "pod")];
          p.pod.namespace_name = LabelOr(l, "namespace");
          p.pod.name = LabelOr(l, "pod");
          p.pod.gpus += static_cast<int>(std::llround(v));
          if (p.pod.container.empty()) p.pod.container = LabelOr(l, "container");
          if (p.pod.node.empty()) p.pod.node = LabelOr(l, "node");
        }));
    STEWARD_RETURN_IF_ERROR(range(kKsmPodInfo, of_gpu_pods(last(kKsmPodInfo)),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    if (PodAcc* p = find_pod(d, l)) {
                                      p->pod.node = LabelOr(l, "node");
                                      if (p->pod.owner_kind.empty()) {
                                        p->pod.owner_kind = LabelOr(l, "created_by_kind");
                                        p->pod.owner_name = LabelOr(l, "created_by_name");
                                      }
                                    }
                                  }));
    STEWARD_RETURN_IF_ERROR(range(owner_series, of_gpu_pods(last(owner_series)),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    if (PodAcc* p = find_pod(d, l)) {
                                      p->pod.owner_kind = LabelOr(l, "owner_kind");
                                      p->pod.owner_name = LabelOr(l, "owner_name");
                                    }
                                  }));
    STEWARD_RETURN_IF_ERROR(range(kKsmPodLabels, of_gpu_pods(last(kKsmPodLabels)),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    PodAcc* p = find_pod(d, l);
                                    if (p == nullptr) return;
                                    // KSM sanitizes label keys; only the attribution keys are
                                    // mapped back.
                                    if (auto it = l.find(team_label); it != l.end())
                                      p->pod.labels[o.attribution.team_label] = it->second;
                                    if (auto it = l.find(workload_label); it != l.end())
                                      p->pod.labels[o.attribution.workload_label] = it->second;
                                    if (auto it = l.find(class_label); it != l.end())
                                      p->pod.labels[o.attribution.class_label] = it->second;
                                  }));
    STEWARD_RETURN_IF_ERROR(range(kKsmPodNodeSelectors, of_gpu_pods(last(kKsmPodNodeSelectors)),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    PodAcc* p = find_pod(d, l);
                                    if (p == nullptr) return;
                                    p->pod.gpu_product = LabelOr(l, product_selector);
                                  }));
    STEWARD_RETURN_IF_ERROR(range(kKsmPodPhase, of_gpu_pods(last(kKsmPodPhase) + " == 1"),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    PodAcc* p = find_pod(d, l);
                                    if (p == nullptr) return;
                                    const std::string phase = LabelOr(l, "phase");
                                    p->pod.phase = phase == "Pending"   ? PodPhase::kPending
                                                   : phase == "Running" ? PodPhase::kRunning
                                                                        : PodPhase::kOther;
                                    p->phase_known = true;
                                  }));
    STEWARD_RETURN_IF_ERROR(range("", of_gpu_pods(last(kKsmPodUnschedulable) + " == 1"),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    if (PodAcc* p = find_pod(d, l)) p->unschedulable = true;
                                  }));
    STEWARD_RETURN_IF_ERROR(range(
        "", of_gpu_pods(last(fmt::format("{}{{condition=\"false\"}}", kKsmPodScheduled)) + " == 1"),
        [&](StepData& d, const PromLabels& l, double) {
          if (PodAcc* p = find_pod(d, l)) p->scheduled_false = true;
        }));

    STEWARD_RETURN_IF_ERROR(range(allocatable_series, last(allocatable_series),
                                  [](StepData& d, const PromLabels& l, double v) {
                                    health::NodeInfo& node = d.nodes[LabelOr(l, "node")];
                                    node.name = LabelOr(l, "node");
                                    node.gpu_allocatable = std::llround(v);
                                    node.gpu_capacity =
                                        std::max(node.gpu_capacity, node.gpu_allocatable);
                                  }));
    auto find_node = [](StepData& d, const PromLabels& l) -> health::NodeInfo* {
      auto it = d.nodes.find(LabelOr(l, "node"));
      return it == d.nodes.end() ? nullptr : &it->second;
    };
    STEWARD_RETURN_IF_ERROR(range(kKsmNodeUnschedulable, last(kKsmNodeUnschedulable),
                                  [&](StepData& d, const PromLabels& l, double v) {
                                    if (health::NodeInfo* node = find_node(d, l))
                                      node->unschedulable = v == 1;
                                  }));
    STEWARD_RETURN_IF_ERROR(
        range(kKsmNodeLabels, last(kKsmNodeLabels), [&](StepData& d, const PromLabels& l, double) {
          health::NodeInfo* node = find_node(d, l);
          if (node == nullptr) return;
          if (auto it = l.find(product_label); it != l.end())
            node->labels[kGpuProductLabel] = it->second;
        }));
    STEWARD_RETURN_IF_ERROR(
        range(ready_series, last(ready_series), [&](StepData& d, const PromLabels& l, double v) {
          if (health::NodeInfo* node = find_node(d, l)) node->ready = v == 1;
        }));

    for (int64_t i = 0; i < n; ++i) {
      StepData& d = data[i];
      std::vector<telemetry::GpuRecord> gpus;
      gpus.reserve(d.gpus.size());
      for (auto& [key, rec] : d.gpus) gpus.push_back(std::move(rec));
      std::vector<const PodObject*> pods;
      for (auto& [key, acc] : d.pods) {
        PodObject& p = acc.pod;
        if (!acc.phase_known) p.phase = p.node.empty() ? PodPhase::kPending : PodPhase::kRunning;
        if (p.phase == PodPhase::kPending && p.node.empty()) {
          p.wait = acc.unschedulable     ? PodWait::kNoFit
                   : acc.scheduled_false ? PodWait::kQueued
                                         : PodWait::kNone;
        }
        pods.push_back(&p);
      }
      std::vector<health::NodeInfo> nodes;
      for (auto& [name, node] : d.nodes) nodes.push_back(std::move(node));
      Snapshot snap;
      snap.time_ms = a_ms + i * o.step_ms;
      snap.gpus = gpus;
      snap.pods = pods;
      snap.nodes = nodes;
      STEWARD_RETURN_IF_ERROR(builder.Add(snap));
    }
  }
  STEWARD_RETURN_IF_ERROR(CheckSeries(o, client.url(), matched, not_computed));
  return builder.Finish();
}

}  // namespace steward::diagnose
