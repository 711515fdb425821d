// Helpers for the policy-simulate tests: inputs from inline YAML and lookups in the result.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "govern/policy_io.h"
#include "govern/simulate.h"

namespace steward::govern::testing {

inline SimulationInput MustInput(const std::string& yaml) {
  SimulationInput in;
  Status s = ImportSimulationYaml(yaml, "sim.yaml", &in);
  EXPECT_TRUE(s.ok()) << s.ToString();
  Status v = ValidatePolicy(&in.policy);
  EXPECT_TRUE(v.ok()) << v.ToString();
  return in;
}

inline SimulationResult MustSimulate(const std::string& yaml, int cycles = 0) {
  auto r = Simulate(MustInput(yaml), {.max_cycles = cycles});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : SimulationResult{};
}

inline const SimulatedWorkload& Find(const SimulationResult& r, const std::string& name) {
  for (const auto& w : r.workloads)
    if (w.name == name) return w;
  ADD_FAILURE() << "no workload " << name;
  static SimulatedWorkload none;
  return none;
}

inline Amount UsageOf(const SimulationResult& r, const std::string& cq, const std::string& flavor,
                      const std::string& resource) {
  for (const auto& q : r.cluster_queues)
    if (q.name == cq)
      for (const auto& u : q.usage)
        if (u.flavor == flavor && u.resource == resource) return u.usage;
  return -1;
}

// A ClusterQueue with one flavor and one resource.
inline std::string Cq(const std::string& name, const std::string& cohort, int gpus,
                      const std::string& extra_spec = "", const std::string& flavor = "default") {
  return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: " + name +
         "}\nspec:\n" + (cohort.empty() ? "" : "  cohort: " + cohort + "\n") +
         "  namespaceSelector: {}\n" + extra_spec +
         "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: " +
         flavor + "\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: " +
         std::to_string(gpus) + "}\n---\n";
}

inline std::string Flavor(const std::string& name) {
  return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: " + name +
         "}\n---\n";
}

inline std::string Lq(const std::string& ns, const std::string& name, const std::string& cq) {
  return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: " + name +
         ", namespace: " + ns + "}\nspec: {clusterQueue: " + cq + "}\n---\n";
}

// A pending (or, with admitted_flavor, admitted) one-pod-set workload of `pods` x `gpus`.
inline std::string Wl(const std::string& name, const std::string& lq, int gpus, int priority,
                      int second, const std::string& admitted_cq = "",
                      const std::string& admitted_flavor = "default", int pods = 1,
                      const std::string& ns = "ns") {
  char ts[32];
  std::snprintf(ts, sizeof ts, "2024-01-01T00:%02d:%02dZ", second / 60, second % 60);
  std::string y = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: " + name +
                  ", namespace: " + ns + ", creationTimestamp: \"" + ts +
                  "\"}\nspec:\n  queueName: " + lq + "\n  priority: " + std::to_string(priority) +
                  "\n  podSets:\n  - name: main\n    count: " + std::to_string(pods) +
                  "\n    template:\n      spec:\n        containers:\n        - resources: "
                  "{requests: {nvidia.com/gpu: \"" +
                  std::to_string(gpus) + "\"}}\n";
  if (!admitted_cq.empty())
    y += "status:\n  admission:\n    clusterQueue: " + admitted_cq +
         "\n    podSetAssignments:\n    - name: main\n      flavors: {nvidia.com/gpu: " +
         admitted_flavor + "}\n      count: " + std::to_string(pods) +
         "\n  conditions:\n  - {type: QuotaReserved, status: \"True\", lastTransitionTime: \"" +
         ts + "\"}\n";
  return y + "---\n";
}

}  // namespace steward::govern::testing
