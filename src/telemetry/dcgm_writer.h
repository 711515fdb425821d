// Renders per-GPU records as a dcgm-exporter /metrics page (Prometheus text 0.0.4).
//
// Layout follows dcgm-exporter's template (internal/pkg/rendermetrics/render_metrics.go): per
// field a "# HELP" and "# TYPE" line, then one line per GPU, labels in the exporter's order
//   gpu, UUID, pci_bus_id, device, modelName, [GPU_I_PROFILE, GPU_I_ID,] Hostname,
//   DCGM_FI_DRIVER_VERSION, then attributes sorted by name (container, err_code, err_msg,
//   namespace, pod, pod_uid).
// Integer fields print with %d, others with %f ("16.365000"). Absent values are skipped, as the
// exporter skips blank DCGM values. Families with no value on any GPU are omitted.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/gpu_record.h"

namespace steward::telemetry {

struct DcgmWriterOptions {
  // Fields to render, in this order. Empty = every DcgmFields() entry in table order.
  std::vector<DcgmField> fields;
  // Label spelling: "Hostname" (every tag up to 4.5.3-4.8.2) or "hostname" (exporter master).
  bool lowercase_hostname = false;
  // Emit pod, namespace, container (and pod_uid="") labels, as with pod mapping on.
  bool pod_labels = false;
  // Message for err_msg on DCGM_FI_DEV_XID_ERRORS; when unset, err_code/err_msg are omitted.
  std::function<std::string(int code)> xid_message;
};

// Appends the exposition of `gpus` to `out`. Cost: one pass per field over the GPUs.
void AppendDcgmExposition(std::string& out, std::span<const GpuRecord> gpus,
                          const DcgmWriterOptions& options = {});
std::string RenderDcgmExposition(std::span<const GpuRecord> gpus,
                                 const DcgmWriterOptions& options = {});
// The same bytes, handed to `write` in pieces of about `piece_bytes` (one GPU's lines past it)
// instead of held whole: a 102,400-GPU page is about 600 MB. Stops, returning false, as soon
// as `write` returns false (the reader has gone); true once the page is written.
bool StreamDcgmExposition(std::span<const GpuRecord> gpus, const DcgmWriterOptions& options,
                          size_t piece_bytes, const std::function<bool(std::string_view)>& write);

}  // namespace steward::telemetry
