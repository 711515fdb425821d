// The "after" scenario of a diagnosis: the diagnosed twin scenario's YAML with the changes the
// artifacts make (Kueue governance, idle reclaim, placement, right-sized and MIG generators), so
// `steward twin run DIR/after.yaml` runs the fixes with no hand-written YAML.
//
// Usage:
//   ScenarioChanges c;  c.governance_file = "kueue.yaml";  c.right_sizing = rows;  ...
//   Result<AfterScenario> a = RewriteScenario(text, source, c);  // a->yaml, a->applied
//
// The twin has no include or overlay mechanism, so the whole scenario is rewritten: the
// original is parsed as a YAML tree, edited, and emitted (comments are lost; key order is
// kept). Relative file paths are rebased onto the output directory. Cost: one parse and emit.
// Thread-safe (no shared state).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/right_sizing.h"
#include "model/status.h"

namespace steward::diagnose {

struct ReclaimChange {
  double notify_after_minutes = 30;
  double reclaim_after_minutes = 60;
  double idle_sm_active_below = 0.05;
  std::vector<std::string> kinds = {"notebook"};
};

struct ScenarioChanges {
  std::filesystem::path scenario_dir;          // Where the original's relative paths start.
  std::filesystem::path out_dir;               // Where the rewritten scenario is written.
  std::optional<std::string> governance_file;  // Replaces policies.admission / governance.
  std::optional<ReclaimChange> reclaim;        // Replaces the reclaim section (enforcing).
  std::string placement;                       // policies.placement ("" = unchanged).
  std::vector<RightSizing> right_sizing;       // Rows that change a request or add MIG.
  std::optional<double> horizon_days;          // The diagnosed run's overrides, if any.
  std::optional<uint64_t> seed;
};

struct AfterScenario {
  std::string yaml;
  // One line per change made ("generators[3] finetune-lora: gpus_per_pod 8 -> 4").
  std::vector<std::string> applied;
  // Right-sizing rows that found no generator to apply to, with why.
  std::vector<std::string> skipped;
  // The rows applied as a MIG instance (for the cohort's device quota).
  std::vector<RightSizing> mig_rows_applied;
};

// `source` names the text in errors. Generators match a row by team and job template: the
// row's class is "team/name" with name the generator's app.kubernetes.io/name label, else its
// name; its gpus_per_pod (a constant, or a value of a `choice`) equals the row's request.
Result<AfterScenario> RewriteScenario(std::string_view text, std::string_view source,
                                      const ScenarioChanges& changes);

// A MIG instance of `sevenths` compute slices shows the same work at 7/sevenths the SM-active
// and busy of a whole GPU (DCGM reads the instance), capped at 1.
double MigScaled(double whole_gpu_value, int sevenths);

}  // namespace steward::diagnose
