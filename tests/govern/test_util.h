// Fixtures for the govern tests: policies from inline YAML and fluent workload builders.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "govern/governance_engine.h"
#include "govern/policy_io.h"

namespace steward::govern::testing {

inline Policy MustImport(const std::string& yaml) {
  Policy p;
  Status s = ImportYaml(yaml, "test.yaml", &p);
  EXPECT_TRUE(s.ok()) << s.ToString();
  Status v = ValidatePolicy(&p);
  EXPECT_TRUE(v.ok()) << v.ToString();
  return p;
}

inline std::unique_ptr<GovernanceEngine> MustEngine(const std::string& yaml,
                                                    EngineOptions options = {}) {
  auto e = GovernanceEngine::Create(MustImport(yaml), options);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return std::move(e).value();
}

// A workload in a ClusterQueue asking `pods` pods of `gpus_per_pod` GPUs.
class WorkloadBuilder {
 public:
  WorkloadBuilder(int64_t id, std::string cq) {
    req_.id = id;
    req_.name = "w" + std::to_string(id);
    req_.cluster_queue = std::move(cq);
    req_.namespace_name = "default";
  }
  WorkloadBuilder& Gpus(int gpus_per_pod, int pods = 1) {
    PodSetRequest ps;
    ps.name = "ps" + std::to_string(req_.pod_sets.size());
    ps.count = pods;
    ps.requests.push_back({"nvidia.com/gpu", gpus_per_pod});
    req_.pod_sets.push_back(ps);
    return *this;
  }
  WorkloadBuilder& Cpu(Amount milli) {
    req_.pod_sets.back().requests.push_back({"cpu", milli});
    return *this;
  }
  WorkloadBuilder& Priority(int32_t p) {
    req_.priority = p;
    return *this;
  }
  WorkloadBuilder& Tier(model::Tier t) {
    req_.tier = t;
    return *this;
  }
  WorkloadBuilder& Checkpoint(SimDuration interval, SimDuration restore = SimDuration()) {
    req_.checkpoint_interval = interval;
    req_.restore_time = restore;
    return *this;
  }
  WorkloadBuilder& Namespace(std::string ns, std::string lq) {
    req_.namespace_name = std::move(ns);
    req_.local_queue = std::move(lq);
    req_.cluster_queue.clear();
    return *this;
  }
  WorkloadBuilder& Selector(std::string k, std::string v) {
    req_.pod_sets.back().node_selector[k] = v;
    return *this;
  }
  WorkloadBuilder& Tolerate(std::string k) {
    Toleration t;
    t.key = std::move(k);
    t.op = "Exists";
    req_.pod_sets.back().tolerations.push_back(t);
    return *this;
  }
  WorkloadBuilder& QueuedAt(SimTime t) {
    req_.queue_timestamp = t;
    return *this;
  }
  const WorkloadRequest& Build() const { return req_; }
  operator const WorkloadRequest&() const { return req_; }  // NOLINT

 private:
  WorkloadRequest req_;
};

inline SimTime At(int64_t seconds) { return kSimStart + Seconds(seconds); }

// Admits `req` at `now`, asserting it fits.
inline void MustAdmit(GovernanceEngine& e, const WorkloadRequest& req, SimTime now = kSimStart) {
  Decision d = e.TryAdmit(req, now);
  ASSERT_EQ(d.mode, AdmissionMode::kFit) << req.name << ": " << d.Message();
  Status s = e.Admit(req, d, now);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// Two queues in one cohort on one H100 flavor; the `extra` text is appended to both specs'
// preemption block.
inline std::string TwoTeams(int nominal_a, int nominal_b, const std::string& a_limits,
                            const std::string& preemption) {
  return R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohort: org
  namespaceSelector: {}
  preemption: )" +
         preemption + R"(
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: )" +
         std::to_string(nominal_a) + a_limits + R"(}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-b}
spec:
  cohort: org
  namespaceSelector: {}
  preemption: )" +
         preemption + R"(
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: )" +
         std::to_string(nominal_b) + R"(}
)";
}

}  // namespace steward::govern::testing
