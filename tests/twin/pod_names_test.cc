// Pod names (twin/pod_names.h): the slot of each placed pod and the name shapes Kubernetes'
// controllers give, worked out by hand.
#include "twin/pod_names.h"

#include <gtest/gtest.h>

namespace steward::twin {
namespace {

model::Workload Gang() {
  model::Workload w;
  w.name = "pretrain-000003";
  w.kind = model::WorkloadKind::kTraining;
  w.pod_sets = {{.name = "launcher", .count = 1, .gpus_per_pod = 0},
                {.name = "worker", .count = 3, .gpus_per_pod = 8}};
  return w;
}

TEST(PodNamesTest, SlotsFollowThePodSetsInOrder) {
  const model::Workload w = Gang();
  EXPECT_EQ(SlotOf(w, 0).pod_set, 0);
  EXPECT_EQ(SlotOf(w, 0).ordinal, 0);
  EXPECT_EQ(SlotOf(w, 1).pod_set, 1);
  EXPECT_EQ(SlotOf(w, 1).ordinal, 0);
  EXPECT_EQ(SlotOf(w, 3).pod_set, 1);
  EXPECT_EQ(SlotOf(w, 3).ordinal, 2);
  EXPECT_EQ(SlotOf(w, 5).pod_set, 1);  // Past the last set: counted on in the last.
  EXPECT_EQ(SlotOf(w, 5).ordinal, 4);
}

TEST(PodNamesTest, ShapesByOwner) {
  model::Workload job = Gang();
  const std::string worker = PodName(job, SlotOf(job, 2), 17);
  EXPECT_EQ(worker.rfind("pretrain-000003-worker-1-", 0), 0u) << worker;
  EXPECT_EQ(worker.size(), std::string("pretrain-000003-worker-1-").size() + 5);
  EXPECT_EQ(worker, PodName(job, SlotOf(job, 2), 17));  // Deterministic.
  EXPECT_NE(worker, PodName(job, SlotOf(job, 2), 18));  // A restarted pod is a new pod.

  model::Workload service;
  service.name = "chat-000001";
  service.kind = model::WorkloadKind::kInference;
  service.pod_sets = {{.name = "server", .count = 2, .gpus_per_pod = 1}};
  const std::string rs = ReplicaSetName(service);
  EXPECT_EQ(rs.size(), std::string("chat-000001-").size() + 10);
  const std::string replica = PodName(service, SlotOf(service, 5), 42);
  EXPECT_EQ(replica.rfind(rs + "-", 0), 0u) << replica;
  EXPECT_EQ(SlotOf(service, 5).pod_set, 0);  // A service's replicas are its one pod set.

  model::Workload notebook;
  notebook.name = "nb-000002";
  notebook.kind = model::WorkloadKind::kNotebook;
  notebook.pod_sets = {{.name = "main", .count = 1, .gpus_per_pod = 1}};
  EXPECT_EQ(PodName(notebook, SlotOf(notebook, 0), 99), "nb-000002-0");  // StatefulSet.
}

TEST(PodNamesTest, SuffixesUseKubernetesAlphabet) {
  for (uint64_t seed : {0ull, 1ull, 12345ull, ~0ull}) {
    const std::string s = NameSuffix(seed, 10);
    ASSERT_EQ(s.size(), 10u);
    EXPECT_EQ(s.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace steward::twin
