// The causes of wasted GPU-hours: one list of names and meanings shared by the waste classifier
// (`steward diagnose`), the showback ledger (`twin run --ledger`, `/allocation`
// gpuWasteHoursByCause, `cost review`). docs/diagnose.md gives each cause's detection rule.
//
// Holder causes are GPU-hours a workload holds without computing; they belong to that workload
// and are what ledger records carry. Cluster causes (fragmentation, queueing) are free GPU-hours
// nobody holds, so they are reported for the cluster, never on a ledger record.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace steward::cost {

enum class WasteCause : uint8_t {
  kZombie,           // Memory held, SM-active ~0, for a long streak (an abandoned notebook).
  kOverRequest,      // Allocated to a running pod that never drives the GPU.
  kDataloaderStall,  // GPU_UTIL drops to 0 again and again while the pod computes.
  kLowEfficiency,    // Computing, but SM-active (or tensor-active) below the target.
  kStartup,          // Held by a pod that has not started yet (image pull, container start).
  kFragmentation,    // Free, but no node has room for a pod that fits in the free total.
  kQueueing,         // Free while work waits for quota (capacity idle, queue blocked).
};
inline constexpr int kNumWasteCauses = 7;
inline constexpr std::array<WasteCause, kNumWasteCauses> kAllWasteCauses = {
    WasteCause::kZombie,        WasteCause::kOverRequest, WasteCause::kDataloaderStall,
    WasteCause::kLowEfficiency, WasteCause::kStartup,     WasteCause::kFragmentation,
    WasteCause::kQueueing};

// "zombie", "over_request", "dataloader_stall", "low_efficiency", "startup", "fragmentation",
// "queueing": the keys of waste_gpu_hours_by_cause and gpuWasteHoursByCause.
std::string_view WasteCauseName(WasteCause cause);
std::optional<WasteCause> ParseWasteCause(std::string_view name);
// One sentence: what the GPU-hours of this cause are.
std::string_view WasteCauseMeaning(WasteCause cause);
// True for causes a workload holds (everything but fragmentation and queueing).
bool IsHolderCause(WasteCause cause);

// The low-efficiency rule applied to a steady rate: GPU-hours spent computing whose SM-active
// share is below `threshold` count their non-SM-active part as waste. The classifier applies
// it per sample; a producer that only knows totals at a constant rate (the twin's ledger) gets
// the same number from this.
// The default target: SM-active below 30% while computing is low efficiency (docs/diagnose.md
// gives the reasoning). The classifier's threshold defaults to it; `--threshold` overrides.
inline constexpr double kDefaultLowSmActive = 0.30;
double LowEfficiencyGpuHours(double computing_gpu_hours, double sm_active_gpu_hours,
                             double threshold);

}  // namespace steward::cost
