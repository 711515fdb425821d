// The offline bundle's layout rules and errors, on hand-written files.
#include "diagnose/bundle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "diagnose/classifier.h"
#include "diagnose/prometheus_source.h"

namespace steward::diagnose {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("steward-bundle-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path / "scrapes");
  }
  ~TempDir() { fs::remove_all(path); }
  void Write(const std::string& name, const std::string& text) const {
    fs::create_directories((path / name).parent_path());
    ASSERT_TRUE(WriteFile(path / name, text).ok());
  }
};

// One GPU held by pod "nb" of namespace "lab".
std::string Scrape(double sm, double util, double fb, const std::string& stamp = "") {
  const std::string l =
      "{gpu=\"0\",UUID=\"GPU-1\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"n1\","
      "container=\"main\",namespace=\"lab\",pod=\"nb\"} ";
  const std::string ts = stamp.empty() ? "" : " " + stamp;
  return "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\nDCGM_FI_PROF_SM_ACTIVE" + l + std::to_string(sm) +
         ts + "\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL" + l +
         std::to_string(util) + ts + "\n# TYPE DCGM_FI_DEV_FB_USED gauge\nDCGM_FI_DEV_FB_USED" + l +
         std::to_string(fb) + ts + "\n";
}

constexpr char kPods[] = R"({"kind": "List", "items": [
  {"metadata": {"name": "nb", "namespace": "lab", "labels": {"team": "research"}},
   "spec": {"nodeName": "n1", "containers": [{"name": "main",
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
   "status": {"phase": "Running"}}]})";

Result<Diagnosis> Diagnose(const fs::path& dir) {
  STEWARD_ASSIGN_OR_RETURN(BundleReader reader, BundleReader::Open(dir));
  FrameBuilder builder(Attribution{}, reader.step_ms());
  Classifier classifier(Thresholds{}, cost::CostModel::Default());
  builder.AddSink(&classifier);
  STEWARD_RETURN_IF_ERROR(reader.Run(builder));
  return classifier.Result({});
}

TEST(BundleTest, ScrapesAndOneKubectlSnapshot) {
  TempDir b;
  // Thirteen 5-minute scrapes (no bundle.json: the step is their spacing), idle with memory
  // held for the last 12 = 1 h: a zombie of 12 x 5 min = 1 GPU-hour.
  for (int i = 0; i < 13; ++i)
    b.Write("scrapes/" + std::to_string(1'767'225'600'000 + i * 300'000LL) + ".prom",
            i == 0 ? Scrape(0.5, 80, 4000) : Scrape(0, 0, 4000));
  b.Write("pods.json", kPods);
  Result<Diagnosis> d = Diagnose(b.path);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_NEAR(d->waste_gpu_hours_by_cause.at("zombie"), 1.0, 1e-9);
  ASSERT_EQ(d->top_teams.size(), 1u);
  EXPECT_EQ(d->top_teams[0].name, "research");  // From the pod's label, not its namespace.
}

TEST(BundleTest, ObjectSnapshotsApplyFromTheirTimeOn) {
  TempDir b;
  for (int i = 0; i < 4; ++i)
    b.Write("scrapes/" + std::to_string(1000 + i * 60'000) + ".prom", Scrape(0, 0, 0));
  // Pods known from the third scrape on: the first two fall back to the namespace.
  b.Write("pods/" + std::to_string(1000 + 2 * 60'000) + ".json", kPods);
  Result<Diagnosis> d = Diagnose(b.path);
  ASSERT_TRUE(d.ok()) << d.status().message();
  // Once the object shows up, its team label wins over the namespace.
  ASSERT_EQ(d->top_teams.size(), 1u);
  EXPECT_EQ(d->top_teams[0].name, "research");
  EXPECT_NEAR(d->waste_gpu_hours_by_cause.at("over_request"), 4.0 / 60, 1e-9);
}

TEST(BundleTest, ErrorsNameTheFile) {
  auto error = [](const TempDir& b) {
    Result<Diagnosis> d = Diagnose(b.path);
    EXPECT_FALSE(d.ok());
    return d.ok() ? std::string() : d.status().message();
  };
  {
    TempDir b;
    b.Write("scrapes/1000.prom", Scrape(0, 0, 0));
    b.Write("scrapes/61000.prom", "# TYPE x gauge\nx{a=\"1\" 3\n");
    const std::string e = error(b);
    EXPECT_NE(e.find("61000.prom:2:"), std::string::npos) << e;
    EXPECT_NE(e.find("metrics:"), std::string::npos) << e;
  }
  {
    TempDir b;
    b.Write("scrapes/latest.prom", Scrape(0, 0, 0));
    EXPECT_NE(error(b).find("latest.prom: scrape names must be <unix-milliseconds>.prom"),
              std::string::npos);
  }
  {
    TempDir b;
    b.Write("scrapes/1000.prom", Scrape(0, 0, 0, "1000"));
    b.Write("scrapes/61000.prom", Scrape(0, 0, 0, "1000"));  // Stamped a step early.
    const std::string e = error(b);
    EXPECT_NE(e.find("61000.prom:2:"), std::string::npos) << e;
    EXPECT_NE(e.find("more than half a step"), std::string::npos) << e;
  }
  {
    TempDir b;
    b.Write("scrapes/1000.prom", Scrape(0, 0, 0));
    b.Write("scrapes/61000.prom", Scrape(0, 0, 0));
    b.Write("pods.json", kPods);
    b.Write("pods/1000.json", kPods);
    EXPECT_NE(error(b).find("both pods.json and pods/ exist"), std::string::npos);
  }
  {
    TempDir b;
    b.Write("scrapes/1000.prom", Scrape(0, 0, 0));
    EXPECT_NE(error(b).find("one scrape and no step_seconds"), std::string::npos);
    b.Write("bundle.json", R"({"format": "steward-diagnose-bundle/1", "step_seconds": 0})");
    EXPECT_NE(error(b).find("bundle.json: step_seconds: must be a number > 0"), std::string::npos);
  }
  {
    TempDir b;
    b.Write("scrapes/1000.prom", Scrape(0, 0, 0));
    b.Write("scrapes/61000.prom", Scrape(0, 0, 0));
    b.Write("nodes.json", R"({"items": [{"metadata": {}}]})");
    EXPECT_NE(error(b).find("nodes.json: items[0].metadata.name"), std::string::npos);
  }
}

TEST(PrometheusSourceTest, LookbackMustStayBelowTheStep) {
  PrometheusSourceOptions o;
  o.url = "http://127.0.0.1:1";
  o.step_ms = 60'000;
  o.lookback_ms = 60'000;
  FrameBuilder builder(Attribution{}, o.step_ms);
  const Status s = RunPrometheusSource(o, builder);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("must be > 0 and below the step"), std::string::npos);
  o.lookback_ms = 30'000;
  o.end_ms = -1;
  EXPECT_NE(RunPrometheusSource(o, builder).message().find("--end is before --start"),
            std::string::npos);
}

}  // namespace
}  // namespace steward::diagnose
