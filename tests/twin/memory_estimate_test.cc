// The size check before a twin is built (issue 16): a scenario that would need more memory than
// the limit is refused at once with the estimate; the shipped scenarios are accepted.
#include "twin/memory_estimate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "twin/twin.h"

namespace steward::twin {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kGiB = int64_t{1} << 30;

TEST(MemoryEstimateTest, CountsNodesArrivalsAndSamples) {
  Scenario s;
  s.source = "s.yaml";
  s.horizon_days = 2;
  s.sample_minutes = 30;
  PoolSpec p;
  p.nodes = 100;
  p.gpus_per_node = 8;
  s.pools = {p, p};
  GeneratorSpec poisson;
  poisson.arrival.rate_per_hour = 10;
  poisson.arrival.start_hours = 24;  // Arrives during the second day only.
  GeneratorSpec once;
  once.arrival.process = ArrivalSpec::Process::kOnce;
  once.arrival.count = 5;
  GeneratorSpec late = once;
  late.arrival.start_hours = 48;  // At the horizon: never arrives.
  s.generators = {poisson, once, late};
  const MemoryEstimate e = EstimateMemory(s);
  EXPECT_EQ(e.nodes, 200);
  EXPECT_EQ(e.workloads, 240 + 5);
  EXPECT_EQ(e.alive, 240 + 5);  // Two days: fewer than the finished runs kept readable.
  EXPECT_EQ(e.samples, 2 * 24 * 2);
  EXPECT_EQ(e.served_gpus, 0);
  EXPECT_EQ(e.total_bytes(),
            kBytesBase + 200 * kBytesPerNode + 245 * kBytesPerWorkload + 96 * kBytesPerSample);
  // Served live, every GPU costs its snapshots and dcgm page too.
  EXPECT_EQ(EstimateMemory(s, true).total_bytes(), e.total_bytes() + 1600 * kBytesPerServedGpu);
}

// 365 days of 1,600 GPUs (200 nodes x 8) and one team with `quota_gpus`, whose one generator
// submits 10 one-GPU, one-hour jobs an hour.
Scenario YearOfOneTeam(int quota_gpus) {
  Scenario s;
  s.horizon_days = 365;
  PoolSpec p;
  p.nodes = 200;
  p.gpus_per_node = 8;
  s.pools = {p};
  s.teams = {{"a", "a", quota_gpus}};
  GeneratorSpec g;
  g.team = "a";
  g.arrival.rate_per_hour = 10;
  s.generators = {g};
  return s;
}

// Finished runs are released (issue 22): a year of arrivals costs what is alive at once, by
// Little's law (10 per hour x (twice the 1 h duration + the hour a usage window holds them)),
// plus the finished runs kept readable.
TEST(MemoryEstimateTest, ALongHorizonChargesWhatIsAliveNotEveryArrival) {
  Scenario s = YearOfOneTeam(/*quota_gpus=*/16);
  const MemoryEstimate e = EstimateMemory(s);
  EXPECT_EQ(e.workloads, 10 * 8760);
  EXPECT_EQ(e.alive, 10 * 3 + kDefaultFinishedRunsKept);
  // Half again at the diurnal peak.
  s.generators[0].arrival.diurnal_amplitude = 0.5;
  EXPECT_EQ(EstimateMemory(s).alive, 15 * 3 + kDefaultFinishedRunsKept);
}

// A team whose arrivals want more GPUs than its quota lets run builds a queue that grows with
// the horizon: 10 GPUs wanted against a quota of 4 leaves 60 % of its arrivals waiting.
TEST(MemoryEstimateTest, AnOverloadedQueueIsChargedForItsBacklog) {
  Scenario s = YearOfOneTeam(/*quota_gpus=*/4);
  EXPECT_DOUBLE_EQ(EstimateMemory(s).alive, 10 * 3 + 0.6 * 87600 + kDefaultFinishedRunsKept);
  // The whole cluster overloaded (its 1,600 GPUs against 3,200 wanted) keeps half of them.
  s.teams[0].quota_gpus = 0;  // No quota of its own: the cluster bounds it.
  s.generators[0].gpus_per_pod = Distribution::Constant(320);
  EXPECT_DOUBLE_EQ(EstimateMemory(s).alive, 10 * 3 + 0.5 * 87600 + kDefaultFinishedRunsKept);
}

TEST(MemoryEstimateTest, HugeArrivalsTimesDaysAreRefusedBeforeAnythingIsBuilt) {
  Scenario s = DefaultScenario();
  s.source = "huge.yaml";
  s.generators[0].arrival.process = ArrivalSpec::Process::kPoisson;
  s.generators[0].arrival.rate_per_hour = 1e9;
  s.horizon_days = 365;
  // The default limit (half of this machine): ~9e12 workloads are far beyond any machine.
  Result<std::unique_ptr<Twin>> t = Twin::Create(s);
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_THAT(m, HasSubstr("huge.yaml: the run would need about "));
  EXPECT_THAT(m, HasSubstr(" TB of memory, more than the limit of "));
  EXPECT_THAT(m, HasSubstr("(half of this machine's "));
  EXPECT_THAT(m, HasSubstr("over 365 days, most from generators[0] '" + s.generators[0].name +
                           "' (1e+09 per hour over 8760 h)"));
  EXPECT_THAT(m, HasSubstr("raise the limit with --memory-limit SIZE (e.g. --memory-limit "));
}

TEST(MemoryEstimateTest, HugeNodeCountsAreRefusedWithoutAllocatingThem) {
  Scenario s = DefaultScenario();
  s.source = "nodes.yaml";
  s.pools[0].nodes = 2'000'000'000;  // Building them would need ~50 TB.
  TwinOptions o;
  o.memory_limit_bytes = 64 * kGiB;
  Result<std::unique_ptr<Twin>> t = Twin::Create(s, o);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("for 2,000,000,000 nodes"));
  EXPECT_THAT(t.status().message(), HasSubstr("limit of 64.0 GB (--memory-limit)"));
}

TEST(MemoryEstimateTest, FineSamplingIsNamedAsTheDriver) {
  Scenario s = DefaultScenario();
  s.source = "fine.yaml";
  s.sample_minutes = 0.0001;
  Status st = CheckMemory(s, EstimateMemory(s), 12 * kGiB);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("time-series samples (sample_minutes 0.0001 over 7 days)"));
}

TEST(MemoryEstimateTest, ALimitCanBeRaisedOrTurnedOff) {
  Scenario s = DefaultScenario();
  TwinOptions o;
  o.memory_limit_bytes = 1 << 20;  // 1 MB: nothing fits.
  Result<std::unique_ptr<Twin>> small = Twin::Create(s, o);
  ASSERT_FALSE(small.ok());
  EXPECT_THAT(small.status().message(), HasSubstr("more than the limit of 1 MB (--memory-limit)"));
  o.memory_limit_bytes = -1;  // --memory-limit none.
  EXPECT_TRUE(Twin::Create(s, o).ok());
}

// The shipped scenarios fit on a 24 GB machine (a default limit of 12 GB), the 102,400-GPU
// one included.
TEST(MemoryEstimateTest, TheDefaultAndExampleScenariosFitA24GbMachine) {
  const Scenario d = DefaultScenario();
  EXPECT_TRUE(CheckMemory(d, EstimateMemory(d), 12 * kGiB).ok());
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::string(STEWARD_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".yaml") continue;
    Result<Scenario> s = LoadScenario(entry.path());
    if (!s.ok()) continue;  // Policies, cost models and other non-scenario YAML.
    const MemoryEstimate e = EstimateMemory(*s);
    EXPECT_TRUE(CheckMemory(*s, e, 12 * kGiB).ok()) << entry.path() << ": " << e.total_bytes();
    ++checked;
  }
  EXPECT_GE(checked, 10);
  // A year of the 102,400-GPU scenario too (it peaks near 100 MB; every arrival would be 53 GB).
  Result<Scenario> big =
      LoadScenario(std::string(STEWARD_SOURCE_DIR) + "/examples/scale-100k.yaml");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  big->horizon_days = 365;
  const MemoryEstimate year = EstimateMemory(*big);
  EXPECT_TRUE(CheckMemory(*big, year, 12 * kGiB).ok()) << year.total_bytes();
  EXPECT_LT(year.alive, year.workloads / 10);
}

TEST(MemoryEstimateTest, ParsesLimits) {
  EXPECT_EQ(ParseMemoryLimit("16G").value(), 16 * kGiB);
  EXPECT_EQ(ParseMemoryLimit("16GB").value(), 16 * kGiB);
  EXPECT_EQ(ParseMemoryLimit("16Gi").value(), 16 * kGiB);
  EXPECT_EQ(ParseMemoryLimit("800M").value(), 800 * (int64_t{1} << 20));
  EXPECT_EQ(ParseMemoryLimit("1.5T").value(), 1536 * kGiB);
  EXPECT_EQ(ParseMemoryLimit("4096").value(), 4096);
  EXPECT_EQ(ParseMemoryLimit("none").value(), -1);
  for (const char* bad : {"", "G", "0", "-1G", "12X", "nan", "inf", "1e30G"}) {
    Result<int64_t> r = ParseMemoryLimit(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("--memory-limit")) << bad;
  }
}

}  // namespace
}  // namespace steward::twin
