// The sections of a scenario file, each read by its own function (internal to
// twin/scenario*.cc; ParseScenario in scenario.cc calls them in file order):
//   scenario_cluster.cc      cluster: gpu_models, pools, alibaba_nodes
//   scenario_generators.cc   generators[i]: arrivals, sizes, sharing, usage
//   scenario_policies.cc     policies: admission, placement, placement pools, defrag
//   scenario_faults.cc       faults: XID rates, rack events, rollouts, versions, scheduled
//   scenario_controllers.cc  remediation, reclaim
//   scenario_serving.cc      an inference generator's serving model, the tidal section
//   scenario_validate.cc     cross-references and semantic checks over the whole scenario
// Each fills its part of the Scenario or returns the first error, naming file, line and field.
#pragma once

#include <string>

#include "model/status.h"
#include "twin/scenario.h"
#include "twin/scenario_reader.h"
#include "twin/tidal_yaml.h"  // ParseTidal, ParseAutoscaler (shared with operate --tidal).

namespace steward::twin::scenario_yaml {

Status ParseCluster(const Reader& r, const YAML::Node& cluster, Scenario* s);
Status ParseGenerator(const Reader& r, const YAML::Node& n, const std::string& path,
                      GeneratorSpec* g);
Status ParsePolicies(const Reader& r, const YAML::Node& p, PolicySpec* out);
Status ParseFaults(const Reader& r, const YAML::Node& f, FaultSpec* out);
Status ParseRemediation(const Reader& r, const YAML::Node& m, RemediationSpec* out);
Status ParseReclaim(const Reader& r, const YAML::Node& m, ReclaimSpec* out);
// Names that must resolve, duplicates that must not exist, pods that must fit a node; `root`
// is the parsed tree, for the position of the offending field.
Status Validate(const Reader& r, const YAML::Node& root, const Scenario& s);

// A generator's `traffic`, `capacity_per_replica`, `latency`, `slo` and `autoscaler` (an
// inference generator's serving model); the `tidal` section is read by ParseTidal (tidal_yaml.h).
Status ParseServing(const Reader& r, const YAML::Node& generator, const std::string& path,
                    GeneratorSpec* g);
// Cross-references of the tidal section (queues, a traffic service to lend from).
Status ValidateTidal(const Reader& r, const YAML::Node& root, Scenario* s);
// Reads each generator's traffic CSV (paths already resolved against the scenario).
Status LoadTrafficCsvs(Scenario* s);

}  // namespace steward::twin::scenario_yaml
