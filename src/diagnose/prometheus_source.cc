#include "diagnose/prometheus_source.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <map>

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

}  // namespace

Status RunPrometheusSource(const PrometheusSourceOptions& o, FrameBuilder& builder) {
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
  telemetry::PrometheusClientOptions co;
  co.timeout_seconds = o.timeout_seconds;
  STEWARD_ASSIGN_OR_RETURN(telemetry::PrometheusClient client,
                           telemetry::PrometheusClient::Create(o.url, co));

  const std::string w = fmt::format("[{}ms]", o.lookback_ms);
  auto last = [&](std::string_view series) {
    return fmt::format("last_over_time({}{})", series, w);
  };
  const std::string gpu_requests =
      last(fmt::format("{}{{resource=\"{}\"}}", kKsmPodRequests, kKsmGpuResource)) + " > 0";
  auto of_gpu_pods = [&](const std::string& q) {
    return fmt::format("({}) and on(namespace, pod) ({})", q, gpu_requests);
  };
  const std::string team_label = KsmLabel("label", o.attribution.team_label);
  const std::string workload_label = KsmLabel("label", o.attribution.workload_label);
  const std::string class_label = KsmLabel("label", o.attribution.class_label);
  const std::string product_selector = KsmLabel("nodeselector", kGpuProductLabel);
  const std::string product_label = KsmLabel("label", kGpuProductLabel);

  const int64_t steps = (o.end_ms - o.start_ms) / o.step_ms + 1;
  for (int64_t k0 = 0; k0 < steps; k0 += o.chunk_steps) {
    const int64_t n = std::min<int64_t>(o.chunk_steps, steps - k0);
    const int64_t a_ms = o.start_ms + k0 * o.step_ms;
    std::vector<StepData> data(n);
    // Runs `promql` over the chunk and hands every point to `each` with its step.
    auto range =
        [&](const std::string& promql,
            const std::function<void(StepData&, const PromLabels&, double)>& each) -> Status {
      STEWARD_ASSIGN_OR_RETURN(
          telemetry::PromQueryResult r,
          client.QueryRange(promql, static_cast<double>(a_ms) / 1000,
                            static_cast<double>(a_ms + (n - 1) * o.step_ms) / 1000,
                            static_cast<double>(o.step_ms) / 1000));
      if (r.type != telemetry::PromResultType::kMatrix)
        return Status::Corrupt(fmt::format("{}: answer is not a matrix", promql));
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
          range(last(telemetry::InfoOf(f).name), [f](StepData& d, const PromLabels& l, double v) {
            telemetry::GpuIdentity id = IdentityOf(l);
            std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}/{}", id.hostname, id.uuid, id.gpu,
                                          id.namespace_name, id.pod);
            telemetry::GpuRecord& rec = d.gpus[key];
            if (rec.id.hostname.empty() && rec.id.uuid.empty()) rec.id = std::move(id);
            rec.values.Set(f, v);
          }));
    }

    STEWARD_RETURN_IF_ERROR(range(gpu_requests, [](StepData& d, const PromLabels& l, double v) {
      PodAcc& p = d.pods[LabelOr(l, "namespace") + "/" + LabelOr(l, "pod")];
      p.pod.namespace_name = LabelOr(l, "namespace");
      p.pod.name = LabelOr(l, "pod");
      p.pod.gpus += static_cast<int>(std::llround(v));
      if (p.pod.container.empty()) p.pod.container = LabelOr(l, "container");
      if (p.pod.node.empty()) p.pod.node = LabelOr(l, "node");
    }));
    STEWARD_RETURN_IF_ERROR(
        range(of_gpu_pods(last(kKsmPodInfo)), [&](StepData& d, const PromLabels& l, double) {
          if (PodAcc* p = find_pod(d, l)) {
            p->pod.node = LabelOr(l, "node");
            if (p->pod.owner_kind.empty()) {
              p->pod.owner_kind = LabelOr(l, "created_by_kind");
              p->pod.owner_name = LabelOr(l, "created_by_name");
            }
          }
        }));
    STEWARD_RETURN_IF_ERROR(
        range(of_gpu_pods(last(fmt::format("{}{{owner_is_controller=\"true\"}}", kKsmPodOwner))),
              [&](StepData& d, const PromLabels& l, double) {
                if (PodAcc* p = find_pod(d, l)) {
                  p->pod.owner_kind = LabelOr(l, "owner_kind");
                  p->pod.owner_name = LabelOr(l, "owner_name");
                }
              }));
    STEWARD_RETURN_IF_ERROR(
        range(of_gpu_pods(last(kKsmPodLabels)), [&](StepData& d, const PromLabels& l, double) {
          PodAcc* p = find_pod(d, l);
          if (p == nullptr) return;
          // KSM sanitizes label keys; only the attribution keys are mapped back.
          if (auto it = l.find(team_label); it != l.end())
            p->pod.labels[o.attribution.team_label] = it->second;
          if (auto it = l.find(workload_label); it != l.end())
            p->pod.labels[o.attribution.workload_label] = it->second;
          if (auto it = l.find(class_label); it != l.end())
            p->pod.labels[o.attribution.class_label] = it->second;
        }));
    STEWARD_RETURN_IF_ERROR(range(of_gpu_pods(last(kKsmPodNodeSelectors)),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    PodAcc* p = find_pod(d, l);
                                    if (p == nullptr) return;
                                    p->pod.gpu_product = LabelOr(l, product_selector);
                                  }));
    STEWARD_RETURN_IF_ERROR(range(of_gpu_pods(last(kKsmPodPhase) + " == 1"),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    PodAcc* p = find_pod(d, l);
                                    if (p == nullptr) return;
                                    const std::string phase = LabelOr(l, "phase");
                                    p->pod.phase = phase == "Pending"   ? PodPhase::kPending
                                                   : phase == "Running" ? PodPhase::kRunning
                                                                        : PodPhase::kOther;
                                    p->phase_known = true;
                                  }));
    STEWARD_RETURN_IF_ERROR(range(of_gpu_pods(last(kKsmPodUnschedulable) + " == 1"),
                                  [&](StepData& d, const PromLabels& l, double) {
                                    if (PodAcc* p = find_pod(d, l)) p->unschedulable = true;
                                  }));
    STEWARD_RETURN_IF_ERROR(range(
        of_gpu_pods(last(fmt::format("{}{{condition=\"false\"}}", kKsmPodScheduled)) + " == 1"),
        [&](StepData& d, const PromLabels& l, double) {
          if (PodAcc* p = find_pod(d, l)) p->scheduled_false = true;
        }));

    STEWARD_RETURN_IF_ERROR(
        range(last(fmt::format("{}{{resource=\"{}\"}}", kKsmNodeAllocatable, kKsmGpuResource)),
              [](StepData& d, const PromLabels& l, double v) {
                health::NodeInfo& node = d.nodes[LabelOr(l, "node")];
                node.name = LabelOr(l, "node");
                node.gpu_allocatable = std::llround(v);
                node.gpu_capacity = std::max(node.gpu_capacity, node.gpu_allocatable);
              }));
    auto find_node = [](StepData& d, const PromLabels& l) -> health::NodeInfo* {
      auto it = d.nodes.find(LabelOr(l, "node"));
      return it == d.nodes.end() ? nullptr : &it->second;
    };
    STEWARD_RETURN_IF_ERROR(
        range(last(kKsmNodeUnschedulable), [&](StepData& d, const PromLabels& l, double v) {
          if (health::NodeInfo* node = find_node(d, l)) node->unschedulable = v == 1;
        }));
    STEWARD_RETURN_IF_ERROR(
        range(last(kKsmNodeLabels), [&](StepData& d, const PromLabels& l, double) {
          health::NodeInfo* node = find_node(d, l);
          if (node == nullptr) return;
          if (auto it = l.find(product_label); it != l.end())
            node->labels[kGpuProductLabel] = it->second;
        }));
    STEWARD_RETURN_IF_ERROR(
        range(last(fmt::format("{}{{condition=\"Ready\",status=\"true\"}}", kKsmNodeCondition)),
              [&](StepData& d, const PromLabels& l, double v) {
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
  return builder.Finish();
}

}  // namespace steward::diagnose
