// One code path, several sources: a twin run diagnosed directly, and the same run written as a
// bundle (and as OpenMetrics) and read back, give the same answer; the twin's answer matches
// its own ground truth within what sampling allows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cost/waste_cause.h"
#include "diagnose/bundle.h"
#include "diagnose/classifier.h"
#include "diagnose/openmetrics_writer.h"
#include "diagnose/twin_source.h"
#include "telemetry/exposition.h"
#include "twin/twin.h"

namespace steward::diagnose {
namespace {

namespace fs = std::filesystem;

// examples/diagnose/small.yaml: 4 HGX nodes (32 H100). "ml" runs an over-requesting, stalling
// fine-tune (drives 2 of 8 GPUs, 20% stalls every 10 min); "lab" opens notebooks that go idle
// after 30 min and scatter over the nodes; "big" submits 8-GPU jobs faster than its 8-GPU quota
// runs them: the next waits while GPUs sit free.
twin::Scenario Scenario() {
  Result<twin::Scenario> s =
      twin::LoadScenario(std::string(STEWARD_SOURCE_DIR) + "/examples/diagnose/small.yaml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

// The twin of the example, run for `days` (0 = the scenario's horizon).
std::unique_ptr<twin::Twin> MakeTwin(double days = 0) {
  twin::TwinOptions o;
  o.days = days;
  auto t = twin::Twin::Create(Scenario(), o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("steward-sources-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

constexpr int64_t kStepMs = 300'000;

TEST(SourcesTest, TwinAndItsBundleGiveTheSameAnswer) {
  TempDir tmp;
  FrameBuilder builder(Attribution{}, kStepMs);
  Classifier from_twin(Thresholds{}, cost::CostModel::Default());
  builder.AddSink(&from_twin);
  auto writer = BundleWriter::Create(tmp.path / "bundle", kStepMs, "twin sources-test");
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  builder.AddSink(writer->get());
  OpenMetricsWriter om(tmp.path / "run.om");
  builder.AddSink(&om);
  TwinSourceOptions o;
  o.step_ms = kStepMs;
  o.epoch_ms = 1'767'225'600'000;
  ASSERT_TRUE(RunTwinSource(*MakeTwin(), o, builder).ok());
  EXPECT_EQ(builder.frames(), 288);  // One day every 5 minutes.
  const Diagnosis twin = from_twin.Result({});

  Result<BundleReader> reader = BundleReader::Open(tmp.path / "bundle");
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ(reader->step_ms(), kStepMs);  // From bundle.json.
  EXPECT_EQ(reader->scrapes(), 288u);
  FrameBuilder from_files(Attribution{}, reader->step_ms());
  Classifier bundle_classifier(Thresholds{}, cost::CostModel::Default());
  from_files.AddSink(&bundle_classifier);
  ASSERT_TRUE(reader->Run(from_files).ok());
  const Diagnosis bundle = bundle_classifier.Result({});

  // Every cause the run should show is there, and both sources agree to the last digit.
  for (const char* cause : {"over_request", "dataloader_stall", "zombie", "startup", "queueing",
                            "fragmentation", "low_efficiency"})
    EXPECT_GT(twin.waste_gpu_hours_by_cause.count(cause), 0u) << cause;
  EXPECT_EQ(ToJson(twin).dump(), ToJson(bundle).dump());

  // The OpenMetrics file is valid OpenMetrics (what promtool backfills).
  std::ifstream in(tmp.path / "run.om");
  std::stringstream text;
  text << in.rdbuf();
  telemetry::ParseOptions po;
  po.dialect = telemetry::Dialect::kOpenMetrics;
  const telemetry::Scrape scrape = telemetry::ParseExposition(text.str(), po);
  EXPECT_TRUE(scrape.ok()) << scrape.errors.front().ToString();
  EXPECT_GT(scrape.samples.size(), 288u * 32);
}

// The classifier, reading only what the exporter shows, against the twin's own meter of the
// same run (a week, so that sampling noise is small). The differences are the sampling: a hold
// is seen on 5-minute marks (its ends are off by up to a step), a stall or a 90 s startup is seen
// when a mark falls in it, and a notebook's idle phase only becomes zombie once it has lasted an
// hour (a shorter one is a pause: low efficiency).
TEST(SourcesTest, TwinAnswerMatchesGroundTruth) {
  std::map<std::string, double> truth;
  double allocated = 0, sm = 0;
  twin::TwinOptions to;
  to.days = 7;
  to.window = Days(10);
  to.on_window = [&](SimTime, SimTime, const std::vector<twin::UsageRecord>& records) {
    for (const auto& r : records) {
      allocated += r.hours.allocated;
      sm += r.hours.sm_active;
      truth["zombie"] += r.hours.zombie;
      truth["over_request"] += r.hours.over_request;
      truth["dataloader_stall"] += r.hours.data_stall;
      truth["startup"] += r.hours.startup;
    }
  };
  auto t = twin::Twin::Create(Scenario(), to);
  ASSERT_TRUE(t.ok());
  (*t)->Run();

  FrameBuilder builder(Attribution{}, kStepMs);
  Classifier classifier(Thresholds{}, cost::CostModel::Default());
  builder.AddSink(&classifier);
  TwinSourceOptions o;
  o.step_ms = kStepMs;
  ASSERT_TRUE(RunTwinSource(*MakeTwin(7), o, builder).ok());
  EXPECT_EQ(builder.frames(), 7 * 288);
  const Diagnosis d = classifier.Result({});
  auto got = [&](const char* c) {
    auto it = d.waste_gpu_hours_by_cause.find(c);
    return it == d.waste_gpu_hours_by_cause.end() ? 0.0 : it->second;
  };
  const double dt = kStepMs / 3.6e6;
  // Holds last hours; each of their two ends is off by less than a step.
  EXPECT_NEAR(d.allocated_gpu_hours, allocated, 0.01 * allocated);
  EXPECT_NEAR(d.sm_active_gpu_hours, sm, 0.01 * sm);
  EXPECT_NEAR(got("over_request"), truth["over_request"], 0.01 * truth["over_request"]);
  // Each sample of a fine-tune falls in a stall with probability 0.2, independently (the
  // exporter draws each 120 s slot per pod): binomial over n = truth / (0.2 dt) pod-samples,
  // each moving its 2 driven GPUs together: sd = sqrt(n 0.2 0.8) x 2 dt. Allow 4 sd.
  const double stall_sd = std::sqrt(truth["dataloader_stall"] / 2 / dt * 0.8) * 2 * dt;
  EXPECT_NEAR(got("dataloader_stall"), truth["dataloader_stall"], 4 * stall_sd);
  // Idle phases shorter than an hour are pauses, not zombies: the classifier sees less.
  EXPECT_LE(got("zombie"), truth["zombie"] * 1.01);
  EXPECT_GE(got("zombie"), truth["zombie"] * 0.85);
  // A pod's 90 s startup is seen by a 5-minute mark with probability 0.3: binomial over the
  // pods (up to 8 GPUs each, seen together): n <= truth / 90 s GPU-starts, sd <= sqrt(n 0.3 0.7
  // x 8) dt.
  const double startup_sd = std::sqrt(truth["startup"] * 40 * 0.3 * 0.7 * 8) * dt;
  EXPECT_NEAR(got("startup"), truth["startup"], 4 * startup_sd);
  std::cout << "twin truth vs classifier (GPU-h): allocated " << allocated << " / "
            << d.allocated_gpu_hours << ", SM-active " << sm << " / " << d.sm_active_gpu_hours;
  for (const auto& [c, h] : truth) std::cout << ", " << c << " " << h << " / " << got(c.c_str());
  std::cout << "\n";
}

}  // namespace
}  // namespace steward::diagnose
