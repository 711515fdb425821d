// Per-GPU records of dcgm-exporter series: what one scrape says about each GPU.
//
// A record is keyed by (Hostname, UUID), falling back to (Hostname, gpu index) when a series
// carries no UUID. Values that are absent from the scrape stay absent (FieldValues::Get returns
// nullopt): dcgm-exporter skips blank DCGM values, so "no series" means "no data", not zero.
// The same structs feed the writer (dcgm_writer.h), so the twin can fill them directly.
#pragma once

#include <array>
#include <bitset>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "telemetry/dcgm_fields.h"
#include "telemetry/exposition.h"

namespace steward::telemetry {

// Who a GPU is, as dcgm-exporter labels it.
struct GpuIdentity {
  std::string hostname;        // "Hostname" (or "hostname" on exporter master).
  std::string uuid;            // "UUID" (or "uuid" with --use-old-namespace).
  int gpu = -1;                // "gpu": index on the host.
  std::string device;          // "device", e.g. "nvidia0".
  std::string model_name;      // "modelName", e.g. "NVIDIA H100 80GB HBM3".
  std::string pci_bus_id;      // "pci_bus_id", e.g. "00000000:31:00.0".
  std::string driver_version;  // "DCGM_FI_DRIVER_VERSION" label field.
  // Pod mapping (empty when mapping is off or no pod holds the GPU).
  std::string pod;
  std::string namespace_name;
  std::string container;
};

// One value per DcgmField, each present or absent.
class FieldValues {
 public:
  void Set(DcgmField f, double v) {
    values_[Index(f)] = v;
    present_.set(Index(f));
  }
  void Clear(DcgmField f) { present_.reset(Index(f)); }
  bool Has(DcgmField f) const { return present_.test(Index(f)); }
  std::optional<double> Get(DcgmField f) const {
    if (!Has(f)) return std::nullopt;
    return values_[Index(f)];
  }
  size_t count() const { return present_.count(); }

 private:
  static size_t Index(DcgmField f) { return static_cast<size_t>(f); }
  std::array<double, kDcgmFieldCount> values_{};
  std::bitset<kDcgmFieldCount> present_;
};

// A MIG GPU instance: dcgm-exporter labels it with the parent's gpu/UUID plus GPU_I_ID and
// GPU_I_PROFILE (there is no MIG UUID label).
struct MigInstance {
  int gpu_instance_id = 0;
  std::string profile;  // e.g. "1g.5gb".
  FieldValues values;
};

struct GpuRecord {
  GpuIdentity id;
  FieldValues values;  // Whole-GPU series.
  std::vector<MigInstance> mig;
  // XID codes this scrape shows for the GPU, sorted and unique: a non-zero
  // DCGM_FI_DEV_XID_ERRORS value (the last XID; 0 = none), its err_code label, and the xid label
  // of DCGM_EXP_XID_ERRORS_COUNT series with a positive count.
  std::vector<int> xids;
};

// All GPUs of one scrape.
struct DcgmSnapshot {
  std::vector<GpuRecord> gpus;  // In order of first appearance.
  std::vector<int> xids;        // Every XID code seen, sorted and unique.
  size_t gpu_samples = 0;       // Samples attributed to a GPU.
  size_t modeled_samples = 0;   // ... of a field in DcgmFields().
  size_t blank_samples = 0;     // Sentinel "blank" values dropped (see IsDcgmBlank).
  size_t other_samples = 0;     // Samples without GPU labels (NVLink/NVSwitch/CPU entities, ...).

  // The GPU keyed (hostname, uuid), or nullptr.
  const GpuRecord* Find(std::string_view hostname, std::string_view uuid) const;
  // The GPU keyed (hostname, gpu index) among GPUs without a UUID, or nullptr.
  const GpuRecord* FindByIndex(std::string_view hostname, int gpu) const;

  std::unordered_map<std::string, uint32_t> index;  // Key (see GpuKey) -> gpus[] position.
};

// The record key: "host\x1fU<uuid>" or, without a UUID, "host\x1fI<index>".
std::string GpuKey(std::string_view hostname, std::string_view uuid, std::string_view gpu_index);

// True for DCGM's "blank" sentinels, which old exporters printed instead of skipping the series:
// integers at or above DCGM_INT64_BLANK (0x7ffffffffffffff0) and doubles at DCGM_FP64_BLANK
// (140737488355328.0) plus a small code.
bool IsDcgmBlank(double v);

// Groups the GPU samples of `scrape` into per-GPU records. One hash lookup per sample.
DcgmSnapshot BuildDcgmSnapshot(const Scrape& scrape);

}  // namespace steward::telemetry
