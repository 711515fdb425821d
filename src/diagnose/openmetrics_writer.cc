#include "diagnose/openmetrics_writer.h"

#include <fmt/format.h>

#include "diagnose/bundle.h"
#include "diagnose/kube_state_metrics.h"
#include "telemetry/exposition.h"

namespace steward::diagnose {
namespace {

// `name="value"` with OpenMetrics escapes, appended with a leading comma when not first.
void Label(std::string& out, std::string_view name, std::string_view value) {
  if (!out.empty()) out += ',';
  out.append(name).append("=\"");
  telemetry::AppendEscapedLabelValue(out, value);
  out += '"';
}

std::string PodLabels(const PodObject& p) {
  std::string l;
  Label(l, "namespace", p.namespace_name);
  Label(l, "pod", p.name);
  return l;
}

}  // namespace

OpenMetricsWriter::OpenMetricsWriter(std::filesystem::path path) : path_(std::move(path)) {}

void OpenMetricsWriter::Add(const std::string& family, std::string labels, int64_t time_ms,
                            double value) {
  std::vector<Point>& points = series_[family][std::move(labels)];
  // A series listed twice in one snapshot keeps its first value (timestamps must increase).
  if (!points.empty() && points.back().time_ms >= time_ms) return;
  points.push_back(Point{time_ms, value});
}

Status OpenMetricsWriter::Consume(const Snapshot& raw, const Frame&, const Catalog&) {
  const int64_t t = raw.time_ms;
  for (const telemetry::GpuRecord& g : raw.gpus) {
    std::string l;
    Label(l, "gpu", std::to_string(g.id.gpu));
    Label(l, "UUID", g.id.uuid);
    Label(l, "device", g.id.device);
    Label(l, "modelName", g.id.model_name);
    Label(l, "Hostname", g.id.hostname);
    Label(l, "container", g.id.container);
    Label(l, "namespace", g.id.namespace_name);
    Label(l, "pod", g.id.pod);
    for (telemetry::DcgmField f : kDiagnoseFields)
      if (auto v = g.values.Get(f)) Add(std::string(telemetry::InfoOf(f).name), l, t, *v);
  }
  for (const PodObject* pod : raw.pods) {
    const PodObject& p = *pod;
    const std::string base = PodLabels(p);
    std::string l = base;
    Label(l, "container", p.container.empty() ? "main" : p.container);
    Label(l, "node", p.node);
    Label(l, "resource", kKsmGpuResource);
    Label(l, "unit", "integer");
    Add(kKsmPodRequests, l, t, p.gpus);
    l = base;
    Label(l, "node", p.node);
    Label(l, "created_by_kind", p.owner_kind);
    Label(l, "created_by_name", p.owner_name);
    Add(kKsmPodInfo, l, t, 1);
    if (!p.owner_kind.empty()) {
      l = base;
      Label(l, "owner_kind", p.owner_kind);
      Label(l, "owner_name", p.owner_name);
      Label(l, "owner_is_controller", "true");
      Add(kKsmPodOwner, l, t, 1);
    }
    l = base;
    for (const auto& [k, v] : p.labels) Label(l, KsmLabel("label", k), v);
    Add(kKsmPodLabels, l, t, 1);
    if (!p.gpu_product.empty()) {
      l = base;
      Label(l, KsmLabel("nodeselector", kGpuProductLabel), p.gpu_product);
      Add(kKsmPodNodeSelectors, l, t, 1);
    }
    const std::string_view phase =
        p.phase == PodPhase::kOther ? "Succeeded" : PodPhaseName(p.phase);
    for (const char* ph : {"Pending", "Running", "Succeeded", "Failed", "Unknown"}) {
      l = base;
      Label(l, "phase", ph);
      Add(kKsmPodPhase, l, t, phase == ph ? 1 : 0);
    }
    const char* scheduled = !p.node.empty() ? "true" : p.wait != PodWait::kNone ? "false" : nullptr;
    if (scheduled != nullptr) {
      for (const char* c : {"true", "false", "unknown"}) {
        l = base;
        Label(l, "condition", c);
        Add(kKsmPodScheduled, l, t, std::string_view(c) == scheduled ? 1 : 0);
      }
    }
    if (p.wait == PodWait::kNoFit) Add(kKsmPodUnschedulable, base, t, 1);
  }
  for (const health::NodeInfo& n : raw.nodes) {
    std::string base;
    Label(base, "node", n.name);
    std::string l = base;
    Label(l, "resource", kKsmGpuResource);
    Label(l, "unit", "integer");
    Add(kKsmNodeAllocatable, l, t, static_cast<double>(n.gpu_allocatable));
    Add(kKsmNodeUnschedulable, base, t, n.unschedulable ? 1 : 0);
    l = base;
    for (const auto& [k, v] : n.labels) Label(l, KsmLabel("label", k), v);
    Add(kKsmNodeLabels, l, t, 1);
    for (const char* st : {"true", "false", "unknown"}) {
      l = base;
      Label(l, "condition", "Ready");
      Label(l, "status", st);
      const bool now = n.ready ? std::string_view(st) == "true" : std::string_view(st) == "false";
      Add(kKsmNodeCondition, l, t, now ? 1 : 0);
    }
  }
  return Status::Ok();
}

std::string OpenMetricsWriter::Render() const {
  std::string out;
  for (const auto& [family, series] : series_) {
    out += fmt::format("# TYPE {} gauge\n", family);
    for (const auto& [labels, points] : series) {
      for (const Point& p : points) {
        // OpenMetrics timestamps are seconds; milliseconds keep them exact.
        out += fmt::format("{}{{{}}} {} {}.{:03d}\n", family, labels, p.value, p.time_ms / 1000,
                           static_cast<int>(p.time_ms % 1000));
      }
    }
  }
  out += "# EOF\n";
  return out;
}

Status OpenMetricsWriter::Finish(const Catalog&) { return WriteFile(path_, Render()); }

}  // namespace steward::diagnose
