#include "telemetry/dcgm_fields.h"

#include <unordered_map>

namespace steward::telemetry {

namespace {
using F = DcgmField;
constexpr MetricType kG = MetricType::kGauge;
constexpr MetricType kC = MetricType::kCounter;
}  // namespace

const std::array<DcgmFieldInfo, kDcgmFieldCount>& DcgmFields() {
  // HELP texts of the default set are the exporter's own (l4-gpu-operator-scrape.prom); the
  // opt-in ones are from the commented lines of etc/dcp-metrics-included.csv.
  static const std::array<DcgmFieldInfo, kDcgmFieldCount> kFields = {{
      {F::kSmClock, "DCGM_FI_DEV_SM_CLOCK", kG, true, true, "SM clock frequency (in MHz)."},
      {F::kMemClock, "DCGM_FI_DEV_MEM_CLOCK", kG, true, true, "Memory clock frequency (in MHz)."},
      {F::kMemoryTemp, "DCGM_FI_DEV_MEMORY_TEMP", kG, true, true, "Memory temperature (in C)."},
      {F::kGpuTemp, "DCGM_FI_DEV_GPU_TEMP", kG, true, true, "GPU temperature (in C)."},
      {F::kPowerUsage, "DCGM_FI_DEV_POWER_USAGE", kG, false, true, "Power draw (in W)."},
      {F::kTotalEnergyConsumption, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", kC, true, true,
       "Total energy consumption since boot (in mJ)."},
      {F::kPcieReplayCounter, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", kC, true, true,
       "Total number of PCIe retries."},
      {F::kGpuUtil, "DCGM_FI_DEV_GPU_UTIL", kG, true, true, "GPU utilization (in %)."},
      {F::kMemCopyUtil, "DCGM_FI_DEV_MEM_COPY_UTIL", kG, true, true, "Memory utilization (in %)."},
      {F::kEncUtil, "DCGM_FI_DEV_ENC_UTIL", kG, true, true, "Encoder utilization (in %)."},
      {F::kDecUtil, "DCGM_FI_DEV_DEC_UTIL", kG, true, true, "Decoder utilization (in %)."},
      {F::kXidErrors, "DCGM_FI_DEV_XID_ERRORS", kG, true, true,
       "Value of the last XID error encountered."},
      {F::kFbFree, "DCGM_FI_DEV_FB_FREE", kG, true, true, "Framebuffer memory free (in MiB)."},
      {F::kFbUsed, "DCGM_FI_DEV_FB_USED", kG, true, true, "Framebuffer memory used (in MiB)."},
      {F::kFbReserved, "DCGM_FI_DEV_FB_RESERVED", kG, true, true,
       "Framebuffer memory reserved (in MiB)."},
      {F::kNvlinkBandwidthTotal, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", kC, true, true,
       "Total number of NVLink bandwidth counters for all lanes."},
      {F::kUncorrectableRemappedRows, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", kC, true, true,
       "Number of remapped rows for uncorrectable errors"},
      {F::kCorrectableRemappedRows, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", kC, true, true,
       "Number of remapped rows for correctable errors"},
      {F::kRowRemapFailure, "DCGM_FI_DEV_ROW_REMAP_FAILURE", kG, true, true,
       "Whether remapping of rows has failed"},
      {F::kGrEngineActive, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", kG, false, true,
       "Ratio of time the graphics engine is active."},
      {F::kSmActive, "DCGM_FI_PROF_SM_ACTIVE", kG, false, false,
       "The ratio of cycles an SM has at least 1 warp assigned."},
      {F::kPipeTensorActive, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", kG, false, true,
       "Ratio of cycles the tensor (HMMA) pipe is active."},
      {F::kDramActive, "DCGM_FI_PROF_DRAM_ACTIVE", kG, false, true,
       "Ratio of cycles the device memory interface is active sending or receiving data."},
      {F::kPcieTxBytes, "DCGM_FI_PROF_PCIE_TX_BYTES", kG, true, true,
       "The rate of data transmitted over the PCIe bus - including both protocol headers and "
       "data payloads - in bytes per second."},
      {F::kPcieRxBytes, "DCGM_FI_PROF_PCIE_RX_BYTES", kG, true, true,
       "The rate of data received over the PCIe bus - including both protocol headers and data "
       "payloads - in bytes per second."},
      {F::kEccSbeVolTotal, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", kC, true, false,
       "Total number of single-bit volatile ECC errors."},
      {F::kEccDbeVolTotal, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", kC, true, false,
       "Total number of double-bit volatile ECC errors."},
      {F::kEccSbeAggTotal, "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", kC, true, false,
       "Total number of single-bit persistent ECC errors."},
      {F::kEccDbeAggTotal, "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", kC, true, false,
       "Total number of double-bit persistent ECC errors."},
      {F::kNvlinkCrcFlitErrorCountTotal, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", kC, true,
       false, "Total number of NVLink flow-control CRC errors."},
      {F::kNvlinkCrcDataErrorCountTotal, "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", kC, true,
       false, "Total number of NVLink data CRC errors."},
      {F::kNvlinkReplayErrorCountTotal, "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", kC, true,
       false, "Total number of NVLink retries."},
      {F::kNvlinkRecoveryErrorCountTotal, "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", kC, true,
       false, "Total number of NVLink recovery errors."},
  }};
  return kFields;
}

std::optional<DcgmField> DcgmFieldByName(std::string_view name) {
  static const auto* kByName = [] {
    auto* m = new std::unordered_map<std::string_view, DcgmField>();
    for (const auto& f : DcgmFields()) m->emplace(f.name, f.field);
    return m;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

}  // namespace steward::telemetry
