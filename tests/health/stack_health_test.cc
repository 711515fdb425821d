#include "health/stack_health.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace steward::health {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return std::string(STEWARD_SOURCE_DIR) + "/tests/health/testdata/" + name;
}

std::vector<std::pair<std::string, std::string>> NodeCheckPairs(
    const std::vector<StackFinding>& f) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& x : f) out.emplace_back(x.node, x.check);
  return out;
}

TEST(StackHealthTest, CraftedNodeListFiresEachCheck) {
  Result<std::vector<NodeInfo>> nodes = LoadNodeList(Fixture("stack_nodes.json"));
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 6u);
  EXPECT_EQ((*nodes)[4].gpu_capacity, 56);  // MIG resources count as GPU capacity.
  EXPECT_TRUE((*nodes)[5].unschedulable);
  EXPECT_FALSE(IsGpuNode((*nodes)[5]));
  EXPECT_EQ(DriverVersionOf((*nodes)[1]), "550.54.15");  // major.minor.rev joined.

  std::vector<StackFinding> f = CheckStackHealth(*nodes);
  // Hand-derived: a2 has 8 GPUs, 0 allocatable; a3 6 of 8; a3 runs driver 535 and toolkit 1.16.2
  // against pool h100's 550.54.15 / 1.17.4 (2 of 3); pool a100 agrees on 535.104.05; b1 lacks
  // nvidia.com/gpu.product; b1's MIG reconfiguration failed, b2's succeeded.
  EXPECT_EQ(NodeCheckPairs(f), (std::vector<std::pair<std::string, std::string>>{
                                   {"gpu-a2", "device-plugin-down"},
                                   {"gpu-a3", "gpus-unallocatable"},
                                   {"gpu-a3", "driver-version-drift"},
                                   {"gpu-a3", "toolkit-version-drift"},
                                   {"gpu-b1", "missing-gfd-labels"},
                                   {"gpu-b1", "mig-config-mismatch"},
                               }));
  EXPECT_THAT(f[2].message,
              HasSubstr("driver 535.104.05 differs from pool h100's 550.54.15 (2 of 3"));
  EXPECT_THAT(f[1].message, HasSubstr("2 of 8 GPUs"));
  for (const auto& x : f) EXPECT_FALSE(x.hint.empty()) << x.check;
}

TEST(StackHealthTest, PoolLabelIsConfigurable) {
  Result<std::vector<NodeInfo>> nodes = LoadNodeList(Fixture("stack_nodes.json"));
  ASSERT_TRUE(nodes.ok());
  StackHealthOptions o;
  o.pool_labels = {"no-such-label"};  // Every GPU node in one unlabelled pool.
  std::vector<StackFinding> f = CheckStackHealth(*nodes, o);
  int drift = 0;
  for (const auto& x : f) drift += x.check == "driver-version-drift";
  // 535.104.05 on a3, b1, b2 (3 of 5) is now the majority: a1 and a2 drift.
  EXPECT_EQ(drift, 2);
}

TEST(StackHealthTest, EmptyListIsNoNodesButNoObjectIsAnError) {
  // What kubectl prints for a cluster without nodes: a valid list with no findings.
  const char* empty = R"({"apiVersion":"v1","kind":"List","items":[]})";
  Result<std::vector<NodeInfo>> nodes = ParseNodeList(empty, "empty.json");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_TRUE(nodes->empty());
  EXPECT_TRUE(CheckStackHealth(*nodes).empty());
  // A file without any object is the wrong file, unless the caller allows it.
  Result<std::vector<NodeInfo>> refused = ParseNodeList("# nothing\n", "blank.yaml");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("blank.yaml: no objects"));
  EXPECT_TRUE(ParseNodeList("# nothing\n", "blank.yaml", {.allow_empty = true}).ok());
}

TEST(StackHealthTest, MalformedJsonNamesFileAndPosition) {
  Result<std::vector<NodeInfo>> r =
      ParseNodeList("{\n  \"items\": [\n    {\"metadata\": }\n", "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("bad.json:3:"));
  Result<std::vector<NodeInfo>> typed =
      ParseNodeList(R"({"items":[{"metadata":{"name":"n","labels":{"a":1}}}]})", "typed.json");
  ASSERT_FALSE(typed.ok());
  EXPECT_THAT(typed.status().message(), HasSubstr("typed.json: node n: label a"));
  Result<std::vector<NodeInfo>> qty = ParseNodeList(
      R"({"items":[{"metadata":{"name":"n"},"status":{"capacity":{"nvidia.com/gpu":"8x"}}}]})",
      "q.json");
  ASSERT_FALSE(qty.ok());
  EXPECT_THAT(qty.status().message(), HasSubstr("status.capacity[\"nvidia.com/gpu\"]"));
}

}  // namespace
}  // namespace steward::health
