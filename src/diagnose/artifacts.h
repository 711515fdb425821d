// `steward diagnose --out DIR`: for each recommendation of a diagnosis, a file the rest of
// Steward and kubectl accept, and the twin scenario that applies them all (docs/diagnose.md,
// "Artifacts"):
//   queueing       -> kueue.yaml: ResourceFlavor, a Cohort, one ClusterQueue per team (its
//                     quota as nominal, borrowingLimit, lendingLimit, reclaimWithinCohort),
//                     LocalQueues, WorkloadPriorityClasses (`steward policy import` loads it);
//   zombie         -> reclaim.yaml: the scenario's `reclaim:` section, the matching
//                     `steward operate --reclaim-*` flags in a comment;
//   over_request   -> rightsize/<team>-<template>-<n>gpu.patch.yaml: strategic-merge patches of
//                     the pod template's GPU requests and limits (nvidia.com/mig-* for MIG);
//   fragmentation  -> placement.yaml: the scenario's `policies:` placement settings;
//   all of them    -> after.yaml: the diagnosed scenario with the changes (twin sources only).
// Causes fixed in the application (data-loader stalls, kernel efficiency, startup) have no
// configuration: they are listed as not written, with why.
//
// Usage:
//   if (Status s = CheckOutDir(dir); !s.ok()) ...          // before the (long) diagnosis
//   Result<ArtifactSet> a = WriteArtifacts(diagnosis, {dir, &scenario, path, text});
//   json["artifacts"] = ArtifactsJson(*a);
//
// Directory rule: DIR is created; an existing DIR must be empty or hold only what a previous
// --out wrote (every file listed in its artifacts.json manifest), which is then replaced.
// Every file written is read back with the loader that will consume it (govern's Kueue import,
// the scenario parser, YAML). Writes files; not thread-safe for one DIR.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "model/status.h"
#include "twin/scenario.h"

namespace steward::diagnose {

inline constexpr const char* kArtifactManifest = "artifacts.json";

struct Artifact {
  std::string path;                     // Relative to the output directory.
  std::string kind;                     // kueue, idle-reclaim, right-sizing-patch, ...
  std::vector<std::string> implements;  // The recommendations' causes it acts on.
  std::string workload_class;           // right-sizing-patch: the row's class.
  std::string summary;                  // One line of what it does.
};

struct ArtifactSet {
  std::filesystem::path dir;
  std::vector<Artifact> artifacts;
  struct NotWritten {
    std::string cause;
    std::string reason;
  };
  std::vector<NotWritten> not_written;
  std::vector<std::string> scenario_changes;  // What after.yaml changed, one line each.
};

struct ArtifactOptions {
  std::filesystem::path dir;
  // The diagnosed twin scenario (null for Prometheus and bundle sources: without the teams'
  // quotas and generators, kueue.yaml and after.yaml are not written).
  const twin::Scenario* scenario = nullptr;
  std::string scenario_text;              // Its YAML.
  std::filesystem::path scenario_dir;     // Where its relative paths start.
  bool governed_by_policy_files = false;  // Run with --policy: its queues are the user's.
  std::optional<double> horizon_days;     // The diagnosed run's --days / --seed, if given.
  std::optional<uint64_t> seed;
};

// OK when `dir` does not exist, is empty, or holds only a previous manifest's files.
Status CheckOutDir(const std::filesystem::path& dir);

Result<ArtifactSet> WriteArtifacts(const Diagnosis& d, const ArtifactOptions& options);

// [{path, kind, implements, class?, summary}, ...]; `not_written` separately.
nlohmann::json ArtifactsJson(const ArtifactSet& set);
nlohmann::json NotWrittenJson(const ArtifactSet& set);
std::string ArtifactsText(const ArtifactSet& set);

// Kueue YAML for the teams of `scenario` in one cohort. `mig_devices`: the cohort's own quota
// for MIG instances (Kueue counts one per pod, though it takes a fraction of a GPU).
std::string CohortKueueYaml(const twin::Scenario& scenario, int64_t mig_devices);

}  // namespace steward::diagnose
