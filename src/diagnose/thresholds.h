// The waste classifier's thresholds: what counts as idle, held, a zombie, a stall, low
// efficiency. Defaults and the reasoning behind each are in docs/diagnose.md; a YAML file
// (`steward diagnose --thresholds FILE`) or `--threshold KEY=VALUE` overrides any of them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "cost/waste_cause.h"
#include "model/status.h"

namespace steward::diagnose {

struct Thresholds {
  // A sample whose SM_ACTIVE is below this is not computing (the idle-culling default: < 5%).
  double idle_sm_active = 0.05;
  // FB_USED at or above this (MiB) means a process holds memory on the GPU. dcgm-exporter shows
  // 0 MiB used on a GPU no process has opened.
  double fb_held_mib = 1;
  // A GPU idle (not computing) for at least this long while its pod holds it is a zombie;
  // shorter idle streaks are pauses (low efficiency) or, when they recur, stalls.
  double zombie_minutes = 60;
  // GPU_UTIL at or below this percentage during a short idle streak between computing samples is
  // a "drop to 0" (a data-loader stall).
  double stall_gpu_util_percent = 0;
  // Drops per pod's hold of a GPU needed to call them periodic (a single pause is not a stall).
  int stall_min_drops = 2;
  // Computing with SM_ACTIVE below this is low efficiency: the idle SM share counts as waste.
  double low_sm_active = cost::kDefaultLowSmActive;
  // If > 0 and PIPE_TENSOR_ACTIVE is exported, computing with tensor-active below this is low
  // efficiency too. Off by default: inference and notebooks legitimately run non-tensor code.
  double low_tensor_active = 0;
  // A cause earns a recommendation when it wastes at least this share of allocated GPU-hours.
  double recommend_share = 0.02;
  // Rows in each top-N list.
  int top_n = 5;
  // Right-sizing (right_sizing.h): the quantile, over pod-hours, of GPUs driven per pod that
  // becomes the recommended request, and the SM-active (at that quantile) under which a 1-GPU
  // pod is a candidate for a MIG slice.
  double right_size_quantile = 0.95;
  double share_sm_active = 0.5;
};

// Sets `key` (a field name above) from `value`; validates the range. Errors name the key.
Status SetThreshold(Thresholds& t, std::string_view key, std::string_view value);
// Parses "KEY=VALUE" (the --threshold flag).
Status SetThresholdAssignment(Thresholds& t, std::string_view assignment);

// Overrides fields of `t` from a YAML map; unknown keys and bad values are errors naming
// "FILE:LINE:COL: KEY: ...". Keys not in the file keep their current value.
Status ParseThresholds(std::string_view yaml_text, std::string_view filename, Thresholds& t);
Status LoadThresholds(const std::filesystem::path& path, Thresholds& t);

}  // namespace steward::diagnose
