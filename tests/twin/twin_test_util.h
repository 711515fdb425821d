// Fixtures for twin tests: small scenarios written inline, so every expectation can be
// computed by hand.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "twin/controller.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::twin::testing {

// A cluster of `nodes` x 8 H100 in one pool (racks of 2, leaves of 4; `pool_fields` adds the
// pool's own, e.g. "cpu_milli: 64000,"), one team per entry of `teams` ("name:quota"), and the
// generators / extra YAML in `body`. Random faults are off (so expectations can be computed by
// hand) unless `body` has its own faults section.
inline std::string SmallScenarioYaml(int nodes, const std::string& teams, const std::string& body,
                                     double days = 1, const std::string& pool_fields = "") {
  std::string y = "name: small\nseed: 7\nhorizon_days: " + std::to_string(days) +
                  "\nsample_minutes: 30\n"
                  "cluster:\n  gpu_models: [{name: H100, mig_capable: true}]\n"
                  "  pools:\n    - {name: p, nodes: " +
                  std::to_string(nodes) + ", gpus_per_node: 8, gpu_model: H100, " + pool_fields +
                  " nodes_per_rack: 2, nodes_per_leaf: 4}\n"
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

// Two nodes of 8 GPUs (`pool_fields` added to the pool) and team a (16 GPUs); four 2-GPU batch
// jobs of one hour arrive at once, `per_pod` the generator's extra fields (", cpu_milli: 8000").
inline std::string FourTwoGpuJobsYaml(const std::string& pool_fields, const std::string& per_pod) {
  return SmallScenarioYaml(
      2, "a:16",
      "generators:\n"
      "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 4}, gpus_per_pod: 2,"
      " duration_hours: 1" +
          per_pod + "}\n",
      1, pool_fields);
}

// Workloads holding GPUs now (starting or running).
inline int RunningWorkloads(const Twin& t) {
  int n = 0;
  for (const WorkloadRun& r : t.runs())
    n += r.state != RunState::kPending && r.state != RunState::kDone;
  return n;
}

inline Scenario MustParse(const std::string& yaml) {
  Result<Scenario> s = ParseScenario(yaml, "test.yaml");
  if (!s.ok()) throw std::runtime_error(s.status().message());
  return std::move(s).value();
}

// Writes `text` to a file `name` in this process's temporary directory and returns its path.
// CTest runs every test as its own process, several at once, and two tests may write the same
// name: the directory is per process so they never read each other's file.
inline std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("steward-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Kueue policy for two teams: ClusterQueues team-a and team-b in cohort org, flavor h100, nominal
// `nominal_a` / `nominal_b` GPUs, `preemption` as the spec's preemption block, LocalQueues named
// after the teams in namespaces named after the teams; `extra` is appended.
inline std::string TwoTeamPolicyYaml(int nominal_a, int nominal_b, const std::string& preemption,
                                     const std::string& extra = "") {
  auto cq = [&](const std::string& name, int nominal) {
    return "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: " + name +
           "}\nspec:\n  cohort: org\n  namespaceSelector: {}\n  preemption: " + preemption +
           "\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: "
           "h100\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: " +
           std::to_string(nominal) +
           "}\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
           "LocalQueue\nmetadata: {name: " +
           name + ", namespace: " + name + "}\nspec: {clusterQueue: " + name + "}\n";
  };
  return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: h100}\n" +
         cq("team-a", nominal_a) + cq("team-b", nominal_b) + extra;
}

inline std::unique_ptr<Twin> MakeTwin(const std::string& yaml) {
  auto t = Twin::Create(MustParse(yaml));
  if (!t.ok()) throw std::runtime_error(t.status().message());
  return std::move(t).value();
}

// A controller that only keeps the TwinOps it is attached with, for tests that act through them.
class OpsProbe : public TwinController {
 public:
  std::string_view Name() const override { return "probe"; }
  Status Attach(TwinOps& ops) override {
    ops_ = &ops;
    return Status::Ok();
  }
  TwinOps* ops_ = nullptr;
};

// A twin of `yaml` with an OpsProbe attached, run to its first hour.
struct ProbedTwin {
  std::unique_ptr<Twin> twin;
  OpsProbe* probe = nullptr;
};

inline ProbedTwin MakeProbedTwin(const std::string& yaml) {
  ProbedTwin f;
  f.twin = MakeTwin(yaml);
  auto added = f.twin->AddController(std::make_unique<OpsProbe>());
  if (!added.ok()) throw std::runtime_error(added.status().message());
  f.probe = static_cast<OpsProbe*>(*added);
  f.twin->RunUntil(kSimStart + Hours(1));
  return f;
}

// One generator line: `count` workloads of `kind` at `start_hours`, plus `rest` (YAML fields).
inline std::string Once(const std::string& name, const std::string& team, const std::string& kind,
                        int count, double start_hours, const std::string& rest) {
  return "  - {name: " + name + ", team: " + team + ", kind: " + kind +
         ", arrival: {process: once, count: " + std::to_string(count) +
         ", start_hours: " + std::to_string(start_hours) + "}, " + rest + "}\n";
}

}  // namespace steward::twin::testing
