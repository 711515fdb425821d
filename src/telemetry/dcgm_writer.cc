#include "telemetry/dcgm_writer.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "telemetry/exposition.h"

namespace steward::telemetry {

namespace {

void AppendLabel(std::string& out, bool& first, std::string_view name, std::string_view value) {
  if (!first) out.push_back(',');
  first = false;
  out.append(name);
  out += "=\"";
  AppendEscapedLabelValue(out, value);
  out.push_back('"');
}

void AppendValue(std::string& out, const DcgmFieldInfo& info, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
  } else if (info.integer) {
    fmt::format_to(std::back_inserter(out), "{}", static_cast<int64_t>(std::llround(v)));
  } else {
    fmt::format_to(std::back_inserter(out), "{:.6f}", v);
  }
}

void AppendLine(std::string& out, const DcgmFieldInfo& info, const GpuRecord& g,
                const MigInstance* mig, double v, const DcgmWriterOptions& o) {
  out.append(info.name);
  out.push_back('{');
  bool first = true;
  const GpuIdentity& id = g.id;
  const fmt::format_int gpu_index(id.gpu);
  AppendLabel(out, first, "gpu", std::string_view(gpu_index.data(), gpu_index.size()));
  AppendLabel(out, first, "UUID", id.uuid);
  if (!id.pci_bus_id.empty()) AppendLabel(out, first, "pci_bus_id", id.pci_bus_id);
  AppendLabel(out, first, "device",
              id.device.empty() ? fmt::format("nvidia{}", id.gpu) : id.device);
  if (!id.model_name.empty()) AppendLabel(out, first, "modelName", id.model_name);
  if (mig != nullptr) {
    AppendLabel(out, first, "GPU_I_PROFILE", mig->profile);
    AppendLabel(out, first, "GPU_I_ID", fmt::format("{}", mig->gpu_instance_id));
  }
  if (!id.hostname.empty()) {
    AppendLabel(out, first, o.lowercase_hostname ? "hostname" : "Hostname", id.hostname);
  }
  if (!id.driver_version.empty())
    AppendLabel(out, first, "DCGM_FI_DRIVER_VERSION", id.driver_version);
  // Attributes, sorted by name as the exporter's Go template ranges over a map.
  if (o.pod_labels) AppendLabel(out, first, "container", id.container);
  const bool xid_labels = info.field == DcgmField::kXidErrors && o.xid_message;
  if (xid_labels) {
    int code = static_cast<int>(v);
    AppendLabel(out, first, "err_code", fmt::format("{}", code));
    AppendLabel(out, first, "err_msg", o.xid_message(code));
  }
  if (o.pod_labels) {
    AppendLabel(out, first, "namespace", id.namespace_name);
    AppendLabel(out, first, "pod", id.pod);
    AppendLabel(out, first, "pod_uid", "");
  }
  out += "} ";
  AppendValue(out, info, v);
  out.push_back('\n');
}

// Appends the page to `out`; whenever `out` holds at least `piece_bytes`, hands it to `flush`
// (which empties it) and stops when that returns false. Returns false when stopped.
template <typename Flush>
bool WriteDcgmExposition(std::string& out, std::span<const GpuRecord> gpus,
                         const DcgmWriterOptions& options, size_t piece_bytes, Flush&& flush) {
  std::vector<DcgmField> fields = options.fields;
  if (fields.empty()) {
    for (const auto& f : DcgmFields()) fields.push_back(f.field);
  }
  for (DcgmField field : fields) {
    const DcgmFieldInfo& info = InfoOf(field);
    bool any = false;
    for (const GpuRecord& g : gpus) {
      if (g.values.Has(field)) {
        any = true;
        break;
      }
      for (const MigInstance& m : g.mig) any = any || m.values.Has(field);
      if (any) break;
    }
    if (!any) continue;
    out += "# HELP ";
    out.append(info.name);
    out.push_back(' ');
    out.append(info.help);
    out += "\n# TYPE ";
    out.append(info.name);
    out.push_back(' ');
    out.append(MetricTypeName(info.type));
    out.push_back('\n');
    for (const GpuRecord& g : gpus) {
      if (auto v = g.values.Get(field)) AppendLine(out, info, g, nullptr, *v, options);
      for (const MigInstance& m : g.mig) {
        if (auto v = m.values.Get(field)) AppendLine(out, info, g, &m, *v, options);
      }
      if (out.size() >= piece_bytes && !flush(out)) return false;
    }
  }
  return true;
}

}  // namespace

void AppendDcgmExposition(std::string& out, std::span<const GpuRecord> gpus,
                          const DcgmWriterOptions& options) {
  WriteDcgmExposition(out, gpus, options, std::numeric_limits<size_t>::max(),
                      [](std::string&) { return true; });
}

bool StreamDcgmExposition(std::span<const GpuRecord> gpus, const DcgmWriterOptions& options,
                          size_t piece_bytes, const std::function<bool(std::string_view)>& write) {
  std::string out;
  out.reserve(piece_bytes + 4096);
  auto flush = [&write](std::string& piece) {
    const bool more = write(piece);
    piece.clear();
    return more;
  };
  if (!WriteDcgmExposition(out, gpus, options, piece_bytes, flush)) return false;
  return out.empty() || flush(out);
}

std::string RenderDcgmExposition(std::span<const GpuRecord> gpus,
                                 const DcgmWriterOptions& options) {
  std::string out;
  out.reserve(gpus.size() * 4096);
  AppendDcgmExposition(out, gpus, options);
  return out;
}

}  // namespace steward::telemetry
