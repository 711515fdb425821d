// The twin's version model (faults.versions) as a rollout sees it through TwinClusterControl:
// a version label applies the version's behaviour to that node only, and setting the label
// back undoes it.
#include <gtest/gtest.h>

#include "rollout/twin_rollout.h"
#include "twin/scenario.h"
#include "twin/twin.h"

namespace steward::rollout {
namespace {

constexpr char kScenario[] = R"(name: versions
seed: 3
horizon_days: 1
cluster:
  gpu_models:
    - {name: H100, product_label: NVIDIA-H100-80GB-HBM3, memory_mib: 81559}
  pools:
    - {name: h100, nodes: 8, gpus_per_node: 8, gpu_model: H100, nodes_per_rack: 4,
       driver_version: "550"}
teams:
  - {name: t, quota_gpus: 64}
faults:
  enabled: true
  xids: []
  other_interruptions_per_gpu_hour: 0
  rack_events: {per_rack_day: 0}
  versions:
    - {version: "noisy", extra_xids_per_gpu_hour: 1, xid: 13}
    - {version: "blind", advertises_gpus: false}
    - {version: "stuck", mig_state: pending}
remediation: {enabled: false}
)";

// Records XIDs by node name; the test acts through its TwinClusterControl between runs.
class Probe final : public twin::TwinController {
 public:
  std::map<std::string, int> xids;
  std::string_view Name() const override { return "probe"; }
  Status Attach(twin::TwinOps& ops) override {
    ops_ = &ops;
    control_ = std::make_unique<twin::TwinClusterControl>(ops);
    return Status::Ok();
  }
  void OnSignal(const twin::TwinSignal& s) override {
    if (s.kind == twin::TwinSignal::Kind::kXid) ++xids[ops_->cluster().node(s.node).name];
  }
  twin::TwinClusterControl& control() { return *control_; }

 private:
  twin::TwinOps* ops_ = nullptr;
  std::unique_ptr<twin::TwinClusterControl> control_;
};

std::unique_ptr<twin::Twin> MakeTwin(Probe** probe) {
  Result<twin::Scenario> s = twin::ParseScenario(kScenario, "versions.yaml");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  Result<std::unique_ptr<twin::Twin>> t = twin::Twin::Create(std::move(s).value());
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  Result<twin::TwinController*> c = (*t)->AddController(std::make_unique<Probe>());
  *probe = static_cast<Probe*>(*c);
  return std::move(t).value();
}

TEST(rollout_TwinVersionsTest, ExtraXidsOnlyOnNodesRunningTheVersion) {
  Probe* probe = nullptr;
  auto twin = MakeTwin(&probe);
  twin->RunUntil(kSimStart + Minutes(1));
  ASSERT_TRUE(
      probe->control().LabelNode("h100-0001", "steward.io/gpu-driver-version", "noisy", "t").ok());
  twin->RunUntil(kSimStart + Minutes(1) + Hours(10));
  // 1 XID per GPU-hour x 8 GPUs x 10 h: about 80 on h100-0001; none elsewhere (no base rate).
  EXPECT_GT(probe->xids["h100-0001"], 40);
  EXPECT_EQ(probe->xids.size(), 1u);
  std::optional<control::NodeInfo> n = probe->control().Node("h100-0001");
  EXPECT_EQ(n->labels.at("nvidia.com/cuda.driver-version.full"), "noisy");
}

TEST(rollout_TwinVersionsTest, BlindVersionHidesGpusUntilRolledBack) {
  Probe* probe = nullptr;
  auto twin = MakeTwin(&probe);
  twin->RunUntil(kSimStart + Minutes(1));
  ASSERT_TRUE(
      probe->control().LabelNode("h100-0002", "steward.io/gpu-driver-version", "blind", "t").ok());
  twin->RunUntil(kSimStart + Hours(1));
  EXPECT_EQ(probe->control().Node("h100-0002")->gpu_allocatable, 0);
  EXPECT_EQ(probe->control().Node("h100-0003")->gpu_allocatable, 8);
  ASSERT_TRUE(
      probe->control().LabelNode("h100-0002", "steward.io/gpu-driver-version", "550", "t").ok());
  EXPECT_EQ(probe->control().Node("h100-0002")->gpu_allocatable, 8);
}

TEST(rollout_TwinVersionsTest, MigManagerAnswersOnTheStateLabel) {
  Probe* probe = nullptr;
  auto twin = MakeTwin(&probe);
  twin->RunUntil(kSimStart + Hours(1));
  twin::TwinClusterControl& c = probe->control();
  ASSERT_TRUE(c.LabelNode("h100-0000", kMigConfigLabel, "all-1g.10gb", "t").ok());
  EXPECT_EQ(c.Node("h100-0000")->labels.at(kMigStateLabel), "success");
  ASSERT_TRUE(c.LabelNode("h100-0001", kMigConfigLabel, "stuck", "t").ok());
  EXPECT_EQ(c.Node("h100-0001")->labels.at(kMigStateLabel), "pending");
}

}  // namespace
}  // namespace steward::rollout
