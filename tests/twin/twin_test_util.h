// Fixtures for twin tests: small scenarios written inline, so every expectation can be
// computed by hand.
#pragma once

#include <string>

#include "twin/scenario.h"

namespace steward::twin::testing {

// A cluster of `nodes` x 8 H100 in one pool (racks of 2, leaves of 4), one team per entry of
// `teams` ("name:quota"), and the generators / extra YAML in `body`. Random faults are off
// (so expectations can be computed by hand) unless `body` has its own faults section.
inline std::string SmallScenarioYaml(int nodes, const std::string& teams, const std::string& body,
                                     double days = 1) {
  std::string y = "name: small\nseed: 7\nhorizon_days: " + std::to_string(days) +
                  "\nsample_minutes: 30\n"
                  "cluster:\n  gpu_models: [{name: H100, mig_capable: true}]\n"
                  "  pools:\n    - {name: p, nodes: " +
                  std::to_string(nodes) +
                  ", gpus_per_node: 8, gpu_model: H100, nodes_per_rack: 2, nodes_per_leaf: 4}\n"
                  "teams:\n";
  size_t start = 0;
  while (start < teams.size()) {
    size_t comma = teams.find(',', start);
    if (comma == std::string::npos) comma = teams.size();
    const std::string t = teams.substr(start, comma - start);
    const size_t colon = t.find(':');
    y += "  - {name: " + t.substr(0, colon) + ", quota_gpus: " + t.substr(colon + 1) + "}\n";
    start = comma + 1;
  }
  if (body.find("faults:") == std::string::npos) y += "faults: {enabled: false}\n";
  return y + body;
}

inline Scenario MustParse(const std::string& yaml) {
  Result<Scenario> s = ParseScenario(yaml, "test.yaml");
  if (!s.ok()) throw std::runtime_error(s.status().message());
  return std::move(s).value();
}

}  // namespace steward::twin::testing
