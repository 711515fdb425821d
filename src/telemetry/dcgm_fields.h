// The dcgm-exporter series Steward models: field id, Prometheus name, type and whether the
// exporter prints it as an integer (%d) or a double (%f).
//
// Source: NVIDIA/dcgm-exporter etc/default-counters.csv and the opt-in lines of
// etc/dcp-metrics-included.csv (see docs/telemetry.md and ../shared/docs/telemetry-facts.md §1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "telemetry/exposition.h"

namespace steward::telemetry {

enum class DcgmField : uint8_t {
  kSmClock,
  kMemClock,
  kMemoryTemp,
  kGpuTemp,
  kPowerUsage,
  kTotalEnergyConsumption,
  kPcieReplayCounter,
  kGpuUtil,
  kMemCopyUtil,
  kEncUtil,
  kDecUtil,
  kXidErrors,
  kFbFree,
  kFbUsed,
  kFbReserved,
  kNvlinkBandwidthTotal,
  kUncorrectableRemappedRows,
  kCorrectableRemappedRows,
  kRowRemapFailure,
  kGrEngineActive,
  kSmActive,
  kPipeTensorActive,
  kDramActive,
  kPcieTxBytes,
  kPcieRxBytes,
  kEccSbeVolTotal,
  kEccDbeVolTotal,
  kEccSbeAggTotal,
  kEccDbeAggTotal,
  kNvlinkCrcFlitErrorCountTotal,
  kNvlinkCrcDataErrorCountTotal,
  kNvlinkReplayErrorCountTotal,
  kNvlinkRecoveryErrorCountTotal,
  kCount,  // Not a field.
};
inline constexpr size_t kDcgmFieldCount = static_cast<size_t>(DcgmField::kCount);

struct DcgmFieldInfo {
  DcgmField field;
  std::string_view name;  // e.g. "DCGM_FI_DEV_GPU_UTIL".
  MetricType type;        // kGauge or kCounter.
  bool integer;           // Printed with %d by the exporter (else %f).
  bool default_on;        // Enabled in default-counters.csv (else opt-in).
  std::string_view help;  // The exporter's HELP text.
};

// All fields, indexed by DcgmField.
const std::array<DcgmFieldInfo, kDcgmFieldCount>& DcgmFields();
inline const DcgmFieldInfo& InfoOf(DcgmField f) { return DcgmFields()[static_cast<size_t>(f)]; }
// The field called `name`, or nullopt for a series Steward does not model.
std::optional<DcgmField> DcgmFieldByName(std::string_view name);

}  // namespace steward::telemetry
